package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestParse: the sections, their versions and commits; a release without
// its commit, a stray heading or an Unreleased section below a release is
// refused.
func TestParse(t *testing.T) {
	t.Parallel()
	write := func(s string) string {
		p := filepath.Join(t.TempDir(), "CHANGELOG.md")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	const c1, c2 = "1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"
	rs, err := Parse(write("# Changelog\n\n## Unreleased (v1.2.0)\n\n- x\n\n## v1.1.0 (2026-01-02)\n\nCommit: " + c2 + "\n\n## v1.0.0 (2026-01-01)\n\nCommit: " + c1 + "\n"))
	if err != nil || len(rs) != 3 || !rs[0].Unreleased || rs[0].Version != "v1.2.0" || rs[1].Commit != c2 || rs[2].Version != "v1.0.0" {
		t.Fatalf("Parse: %+v %v", rs, err)
	}
	for _, bad := range []string{
		"## v1.0.0 (2026-01-01)\n\n- no commit\n",
		"## v1.0.0 (2026-01-01)\n\nCommit: " + c1 + "\n\n## Unreleased\n",
		"## Unreleased\n\nCommit: " + c1 + "\n",
		"## 1.0.0\n\nCommit: " + c1 + "\n",
		"## v1.0.0 (2026-01-01)\n\nCommit: " + c1 + "\nCommit: " + c2 + "\n",
	} {
		if rs, err := Parse(write(bad)); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", bad, rs)
		}
	}
}

// TestChangelog: the repository's CHANGELOG.md starts with the release
// being built and names the previous one by a full commit.
func TestChangelog(t *testing.T) {
	t.Parallel()
	root, prev := previous(t)
	rs, err := Parse(filepath.Join(root, "CHANGELOG.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !rs[0].Unreleased {
		t.Errorf("CHANGELOG.md:%d: want the Unreleased section first", rs[0].Line)
	}
	if subject := git(t, root, "log", "-1", "--format=%H", prev.Commit); strings.TrimSpace(subject) != prev.Commit {
		t.Errorf("%s's commit %s is not a full hash of this history", prev.Version, prev.Commit)
	}
}
