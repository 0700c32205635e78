package readme

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
)

// TestEveryVariableDocumented: every HAULGRAPH_* and OTEL_* variable the
// code and the scripts read is in the Environment table of docs/operating.md.
func TestEveryVariableDocumented(t *testing.T) {
	t.Parallel()
	root := apptest.RepoRoot(t)
	md, err := os.ReadFile(filepath.Join(root, "docs", "operating.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, env, found := strings.Cut(string(md), "\n## Environment\n")
	if !found {
		t.Fatal(`docs/operating.md has no "## Environment" section`)
	}
	env, _, _ = strings.Cut(env, "\n## ")
	name := regexp.MustCompile(`(HAULGRAPH|OTEL)_[A-Z0-9_]*[A-Z0-9]`)
	seen := map[string]bool{}
	for _, f := range apptest.SourceFiles(t, root) {
		source := (strings.HasSuffix(f, ".go") && !strings.HasSuffix(f, "_test.go")) || strings.HasSuffix(f, ".sh") || f == "Makefile"
		if !source || strings.HasPrefix(f, "bench/") {
			continue // bench/ sets variables for the servers it starts
		}
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue // deleted in the working tree
		}
		for _, v := range name.FindAllString(string(b), -1) {
			if !seen[v] && !strings.Contains(env, "`"+v) {
				t.Errorf("%s reads %s, which docs/operating.md's Environment section does not list", f, v)
			}
			seen[v] = true
		}
	}
	if len(seen) < 10 {
		t.Fatalf("found only %v: is the pattern right?", seen)
	}
}
