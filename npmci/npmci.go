// Package npmci installs the npm packages a directory's package-lock.json
// pins (`npm ci`: exact versions, no install scripts) for the tests that run
// Node.js tools: contract/'s checks and the TypeScript SDK.
package npmci

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// stamp, in node_modules, holds the lock node_modules was installed from.
const stamp = ".haulgraph-lock"

// timeout bounds one npm ci: a first install downloads every package.
const timeout = 10 * time.Minute

// Install makes dir's node_modules what dir/package-lock.json pins, running
// npm ci unless the last complete install there was of this very lock, and
// answers dir as an absolute path. Test processes sharing dir take turns (a
// lock on package-lock.json), so the first installs and the others find the
// stamp.
func Install(t testing.TB, dir string) string {
	t.Helper()
	dir, err := filepath.Abs(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("npmci: %s is needed: %v", tool, err)
		}
	}
	lockFile, err := os.Open(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		t.Fatalf("npmci: %v", err)
	}
	defer lockFile.Close()
	if err := syscall.Flock(int(lockFile.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatalf("npmci: lock %s: %v", lockFile.Name(), err)
	}
	lock, err := os.ReadFile(lockFile.Name())
	if err != nil {
		t.Fatalf("npmci: %v", err)
	}
	done := filepath.Join(dir, "node_modules", stamp)
	if b, err := os.ReadFile(done); err == nil && bytes.Equal(b, lock) {
		return dir
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm ci in %s: %v\n%s", dir, err, out)
	}
	// npm ci makes no node_modules for a lock without packages.
	if err := os.MkdirAll(filepath.Dir(done), 0o755); err != nil {
		t.Fatalf("npmci: %v", err)
	}
	if err := os.WriteFile(done, lock, 0o644); err != nil {
		t.Fatalf("npmci: %v", err)
	}
	return dir
}
