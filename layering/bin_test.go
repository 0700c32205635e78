package layering

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
)

// haulgraphBinary builds cmd/haulgraph into the kept directory cmd/haulgraph's
// own tests build it into (apptest.Kept): go build finds the binary there up
// to date and does not link it again.
func haulgraphBinary(t *testing.T) string {
	t.Helper()
	var bin string
	var out []byte
	_, err := apptest.Kept("cli", apptest.RepoRoot(t), func(dir string) error {
		bin = filepath.Join(dir, "haulgraph")
		// -trimpath, as cmd/haulgraph's tests build it: the same build ID.
		var err error
		out, err = exec.Command("go", "build", "-trimpath", "-o", bin, "../cmd/haulgraph").CombinedOutput()
		return err
	})
	if err != nil {
		t.Fatalf("go build ./cmd/haulgraph: %v\n%s", err, out)
	}
	return bin
}
