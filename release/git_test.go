package release

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
)

// previous is the previous release CHANGELOG.md names, checked to be in
// the repository's history: a clone without it (a shallow one) fails here,
// since these tests are the release's promise and cannot be skipped.
func previous(t *testing.T) (root string, prev Release) {
	t.Helper()
	root = apptest.RepoRoot(t)
	prev, err := Previous(root)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("git", "-C", root, "cat-file", "-e", prev.Commit+"^{commit}").CombinedOutput(); err != nil {
		shallow, _ := exec.Command("git", "-C", root, "rev-parse", "--is-shallow-repository").Output()
		t.Fatalf("the previous release %s (CHANGELOG.md:%d) is commit %s, which this repository's history lacks "+
			"(shallow clone: %s): clone with the full history (git fetch --unshallow) to run this test: %v %s",
			prev.Version, prev.Line, prev.Commit, strings.TrimSpace(string(shallow)), err, out)
	}
	return root, prev
}

// git runs git in root and returns its standard output.
func git(t *testing.T, root string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", root}, args...)...).Output()
	if err != nil {
		msg := ""
		if ee, ok := err.(*exec.ExitError); ok {
			msg = string(ee.Stderr)
		}
		t.Fatalf("git %s: %v %s", strings.Join(args, " "), err, msg)
	}
	return string(out)
}
