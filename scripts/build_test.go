package scripts

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
)

// makeBuild runs `make build` in checkout (a copy of this tree, new each
// run). Its bin/haulgraph is first the one the last make build of a copy of
// this checkout left in the kept directory (apptest.Kept): when the sources
// are the same, go build finds it up to date and does not link again, as in
// a developer's tree; either way the result is kept for the next run.
func makeBuild(t *testing.T, checkout string, env []string) {
	t.Helper()
	var out []byte
	_, err := apptest.Kept("make-build", apptest.RepoRoot(t), func(dir string) error {
		kept, bin := filepath.Join(dir, "haulgraph"), filepath.Join(checkout, "bin", "haulgraph")
		if _, err := os.Stat(kept); err == nil {
			if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
				return err
			}
			if err := apptest.CopyExecutable(kept, bin); err != nil {
				return err
			}
		}
		build := exec.Command("make", "--no-print-directory", "build")
		build.Dir, build.Env = checkout, env
		var err error
		if out, err = build.CombinedOutput(); err != nil {
			return err
		}
		return apptest.CopyExecutable(bin, kept)
	})
	if err != nil {
		t.Fatalf("make build: %v\n%s", err, out)
	}
}
