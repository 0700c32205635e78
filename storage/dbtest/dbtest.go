// Package dbtest gives each test a fresh, migrated PostgreSQL database on the
// server named by DATABASE_URL (make test starts a private one).
//
// Migrating a database takes far longer than copying one, so the migrations
// run once per migration set into a template database (hg_tmpl_<digest>) and
// every test gets a clone of it (CREATE DATABASE … TEMPLATE). The template is
// shared by every test process of a run and by later runs while the embedded
// migrations stay the same; an advisory lock lets one process build it.
package dbtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/contract/emitted"
	"github.com/haulgraph/haulgraph/storage"
)

// templateLock serializes building the template across test processes.
const templateLock = 7340218

var template struct {
	once sync.Once
	name string
	err  error
}

// URL returns the URL of a new database with every migration applied,
// dropped when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	base := baseURL(t)
	template.once.Do(func() { template.name, template.err = ensureTemplate(base) })
	if template.err != nil {
		t.Fatalf("dbtest: template database: %v", template.err)
	}
	return create(t, base, "TEMPLATE "+template.name)
}

// EmptyURL returns the URL of a new database without any migration applied
// (for tests of the migrations themselves), dropped when the test ends.
func EmptyURL(t testing.TB) string {
	t.Helper()
	return create(t, baseURL(t), "")
}

// New opens a fresh database with every migration applied. Every event a
// write appends to its outbox is checked against the published schemas
// (contract/emitted): a mismatch fails the test.
func New(t testing.TB) *storage.DB {
	t.Helper()
	return Open(t, URL(t))
}

// Open opens the database at url (one of this package's) as New does,
// closed when the test ends.
func Open(t testing.TB, url string) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	check := emitted.New(t)
	db.Appended = check.Hook(nil)
	t.Cleanup(func() { db.Close(); check.End() })
	return db
}

func baseURL(t testing.TB) string {
	base := os.Getenv("DATABASE_URL")
	if base == "" {
		t.Fatal("DATABASE_URL is not set: run the tests with `make test`")
	}
	return base
}

// create makes a database named hg_test_<random> (with the given CREATE
// DATABASE options) and returns its URL; the database is dropped at cleanup.
func create(t testing.TB, base, options string) string {
	t.Helper()
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("dbtest: connect: %v", err)
	}
	defer admin.Close(ctx)
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "hg_test_" + hex.EncodeToString(b)
	if copyFiles(admin) {
		// A copy of the template's files: PostgreSQL 15's default copies
		// it block by block through the WAL, about three times the CPU
		// for a database this small (and there is one per test).
		options += " STRATEGY FILE_COPY"
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" "+options); err != nil {
		t.Fatalf("dbtest: create database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	return withDatabase(base, name)
}

// copyFiles reports whether the server has CREATE DATABASE's STRATEGY
// (PostgreSQL 15 and later; the server supports 13).
func copyFiles(admin *pgx.Conn) bool {
	var major int
	_, err := fmt.Sscanf(admin.PgConn().ParameterStatus("server_version"), "%d", &major)
	return err == nil && major >= 15
}

func withDatabase(base, name string) string {
	u, err := url.Parse(base)
	if err != nil {
		panic(fmt.Sprintf("dbtest: DATABASE_URL: %v", err)) // pgx.Connect accepted it
	}
	u.Path = "/" + name
	return u.String()
}

// ensureTemplate returns the name of the migrated template database of the
// embedded migrations, building it if no process has yet.
func ensureTemplate(base string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	name := "hg_tmpl_" + storage.MigrationsDigest()[:16]
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return "", err
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLock); err != nil {
		return "", err
	}
	defer admin.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", templateLock) //nolint:errcheck

	var exists bool
	if err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	// Build under a temporary name and rename when complete, so a process
	// that died half-way never leaves a half-migrated template.
	building := name + "_build"
	if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+building+" WITH (FORCE)"); err != nil {
		return "", err
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+building); err != nil {
		return "", err
	}
	db, err := storage.Open(ctx, withDatabase(base, building))
	if err != nil {
		return "", err
	}
	err = db.Migrate(ctx)
	db.Close()
	if err != nil {
		return "", err
	}
	if err := makeTemplate(ctx, admin, building, name); err != nil {
		return "", err
	}
	// Templates of older migration sets, and those derived from them (named
	// after them), are of no further use.
	return name, dropTemplates(ctx, admin, "hg_tmpl_", name)
}

// makeTemplate renames building, once complete, to name and marks it a
// template. The pool that filled it may take a moment to leave; a rename
// needs its backends gone.
func makeTemplate(ctx context.Context, admin *pgx.Conn, building, name string) error {
	for {
		_, err := admin.Exec(ctx, "ALTER DATABASE "+building+" RENAME TO "+name)
		var pgErr *pgconn.PgError
		if err == nil {
			break
		}
		if !errors.As(err, &pgErr) || pgErr.Code != "55006" { // object_in_use
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(10 * time.Millisecond):
		}
	}
	_, err := admin.Exec(ctx, "ALTER DATABASE "+name+" IS_TEMPLATE true ALLOW_CONNECTIONS false")
	return err
}

// dropTemplates drops the databases whose names start with prefix, but
// keep.
func dropTemplates(ctx context.Context, admin *pgx.Conn, prefix, keep string) error {
	rows, err := admin.Query(ctx, "SELECT datname FROM pg_database WHERE starts_with(datname, $1) AND datname <> $2", prefix, keep)
	if err != nil {
		return err
	}
	stale, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, s := range stale {
		_, _ = admin.Exec(ctx, "ALTER DATABASE "+pgx.Identifier{s}.Sanitize()+" IS_TEMPLATE false")
		_, _ = admin.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{s}.Sanitize()+" WITH (FORCE)")
	}
	return nil
}

// WaitOutboxFinal waits (up to 10 s) until every event committed so far is
// final, i.e. readable by storage.Outbox: outbox readers wait for every older
// transaction on the server to end, and the server is shared by other tests'
// databases.
func WaitOutboxFinal(t testing.TB, db *storage.DB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var held bool
		err := db.Pool.QueryRow(context.Background(),
			"SELECT EXISTS (SELECT 1 FROM events WHERE xact >= pg_snapshot_xmin(pg_current_snapshot()))").Scan(&held)
		if err != nil {
			t.Fatalf("dbtest: %v", err)
		}
		if !held {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("dbtest: outbox events not final after 10 s: a transaction stays open")
		}
		time.Sleep(time.Millisecond) // polling the server's horizon
	}
}

// derivedLock serializes building derived templates across test processes.
const derivedLock = 7340219

var derived struct {
	mu    sync.Mutex
	built map[string]derivedTemplate
}

type derivedTemplate struct {
	name string
	note []byte
}

// Derived returns the URL of a new database, dropped when the test ends,
// cloned from a template that fill made out of a migrated database once:
// for a state many tests start from that takes long to write (a seeded
// tenant), written once per family and version instead of once per test.
// version names what fill writes (a digest of the code that writes it); a
// template of the family with another version is dropped when this one is
// built. fill answers a note (what a test needs to know of the state),
// kept as the template's comment and answered here.
func Derived(t testing.TB, family, version string, fill func(ctx context.Context, url string) ([]byte, error)) (string, []byte) {
	t.Helper()
	base := baseURL(t)
	template.once.Do(func() { template.name, template.err = ensureTemplate(base) })
	if template.err != nil {
		t.Fatalf("dbtest: template database: %v", template.err)
	}
	prefix := template.name + "_" + digest(family)[:8]
	name := prefix + digest(version)[:12]
	derived.mu.Lock()
	d, ok := derived.built[name]
	if !ok {
		note, err := ensureDerived(base, prefix, name, fill)
		if err != nil {
			derived.mu.Unlock()
			t.Fatalf("dbtest: template %s: %v", family, err)
		}
		if derived.built == nil {
			derived.built = map[string]derivedTemplate{}
		}
		d = derivedTemplate{name: name, note: note}
		derived.built[name] = d
	}
	derived.mu.Unlock()
	return create(t, base, "TEMPLATE "+d.name), d.note
}

func digest(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// ensureDerived builds template name (unless a process has) from the
// migrated template and fill, and answers its note.
func ensureDerived(base, prefix, name string, fill func(ctx context.Context, url string) ([]byte, error)) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return nil, err
	}
	defer admin.Close(context.Background())
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", derivedLock); err != nil {
		return nil, err
	}
	defer admin.Exec(context.Background(), "SELECT pg_advisory_unlock($1)", derivedLock) //nolint:errcheck

	var note *string
	err = admin.QueryRow(ctx, "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", name).Scan(&note)
	switch {
	case err == nil && note != nil:
		return hex.DecodeString(*note)
	case err != nil && !errors.Is(err, pgx.ErrNoRows):
		return nil, err
	}
	// Built under another name and renamed once complete, as the migrated
	// template is; the note is written last, so a template without one
	// is half-made and built again.
	building := name + "_b"
	for _, n := range []string{building, name} {
		_, _ = admin.Exec(ctx, "ALTER DATABASE "+n+" IS_TEMPLATE false")
		if _, err := admin.Exec(ctx, "DROP DATABASE IF EXISTS "+n+" WITH (FORCE)"); err != nil {
			return nil, err
		}
	}
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+building+" TEMPLATE "+template.name); err != nil {
		return nil, err
	}
	b, err := fill(ctx, withDatabase(base, building))
	if err != nil {
		return nil, err
	}
	if err := makeTemplate(ctx, admin, building, name); err != nil {
		return nil, err
	}
	if _, err := admin.Exec(ctx, "COMMENT ON DATABASE "+name+" IS '"+hex.EncodeToString(b)+"'"); err != nil {
		return nil, err
	}
	// The family's templates of other versions are of no further use.
	return b, dropTemplates(ctx, admin, prefix, name)
}
