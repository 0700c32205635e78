package layering

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// haulgraphBinary builds cmd/haulgraph into the directory of the user's
// cache that cmd/haulgraph's own tests build it into (one per checkout,
// kept between runs): go build finds the binary there up to date and does
// not link it again. The lock file makes concurrent builds take turns.
func haulgraphBinary(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs(filepath.Join("..", "cmd", "haulgraph"))
	if err != nil {
		t.Fatal(err)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(src))
	dir := filepath.Join(cache, "haulgraph-test-bin", "cli-"+hex.EncodeToString(sum[:8]))
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
	bin := filepath.Join(dir, "haulgraph")
	// -trimpath, as cmd/haulgraph's tests build it: the same build ID.
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "../cmd/haulgraph")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/haulgraph: %v\n%s", err, out)
	}
	return bin
}
