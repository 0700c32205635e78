package scripts

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
)

// makeBuild runs `make build` in checkout (a copy of this tree, new each
// run). Its bin/haulgraph is first the one the last make build of a copy
// of this checkout left in the user's cache: when the sources are the
// same, go build finds it up to date (its build ID is that of the
// sources) and does not link again, as in a developer's tree; either way
// the result goes back to the cache. The tests of this package take turns.
func makeBuild(t *testing.T, checkout string, env []string) {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(apptest.RepoRoot(t)))
	dir := filepath.Join(cache, "haulgraph-test-bin", "make-build-"+hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(dir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	kept, bin := filepath.Join(dir, "haulgraph"), filepath.Join(checkout, "bin", "haulgraph")
	if _, err := os.Stat(kept); err == nil {
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		copyFile(t, kept, bin)
	}
	build := exec.Command("make", "--no-print-directory", "build")
	build.Dir, build.Env = checkout, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
	copyFile(t, bin, kept)
}

// copyFile writes an executable copy of src to dst whole: beside dst, then
// renamed over it.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(dst), ".copy-*")
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, in); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Chmod(0o755); err != nil {
		t.Fatal(err)
	}
	if err := tmp.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		t.Fatal(err)
	}
}
