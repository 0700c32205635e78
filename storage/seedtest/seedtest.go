// Package seedtest gives a test a database holding a seeded tenant
// (storage/seed) without seeding it: each seed.Options is seeded once into a
// template database (dbtest.Derived) that the tests clone. Seeding a tenant
// at scale 1 writes some 30,000 rows through foreign-key checks; a clone
// copies files.
package seedtest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// URL returns the URL of a new database, dropped when the test ends,
// holding what seed.Run(opts) writes into a migrated database, and the
// Result it answered. opts.Progress is not used.
func URL(t testing.TB, opts seed.Options) (string, *seed.Result) {
	t.Helper()
	v, err := version()
	if err != nil {
		t.Fatalf("seedtest: %v", err)
	}
	opts.Progress, opts.Bar = nil, false
	family := fmt.Sprintf("seed %q %q %d %t", opts.Tenant, opts.Name, opts.Scale, opts.CheckReferences)
	url, note := dbtest.Derived(t, family, v, func(ctx context.Context, url string) ([]byte, error) {
		db, err := storage.Open(ctx, url)
		if err != nil {
			return nil, err
		}
		defer db.Close()
		res, err := seed.Run(ctx, db, opts)
		if err != nil {
			return nil, err
		}
		return json.Marshal(res)
	})
	var res seed.Result
	if err := json.Unmarshal(note, &res); err != nil {
		t.Fatalf("seedtest: the template's result: %v", err)
	}
	return url, &res
}

var sources struct {
	once    sync.Once
	version string
	err     error
}

// version digests every Go source (tests left out), SQL file and go.sum of
// the module: a template seeded by other code is seeded again. Any change
// of the server's code costs one seeding, and no change the seed depends
// on can be missed.
func version() (string, error) {
	sources.once.Do(func() {
		root, err := moduleRoot()
		if err != nil {
			sources.err = err
			return
		}
		h := sha256.New()
		sources.err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() {
				// What the go command ignores, and the npm tools (whose build
				// directories tests write Go code into).
				if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata" || name == "node_modules" || name == "build") {
					return filepath.SkipDir
				}
				if _, err := os.Stat(filepath.Join(path, "go.mod")); path != root && err == nil {
					return filepath.SkipDir // another module
				}
				return nil
			}
			if !(strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") || strings.HasSuffix(name, ".sql") || path == filepath.Join(root, "go.sum")) {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			fmt.Fprintf(h, "%s\x00%d\x00", rel, len(b))
			h.Write(b)
			return nil
		})
		sources.version = hex.EncodeToString(h.Sum(nil))
	})
	return sources.version, sources.err
}

// moduleRoot is the directory of the go.mod above the working directory
// (a test runs in its package's directory).
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
