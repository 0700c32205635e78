package layering

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDataloadersInOnePlace: the dataloaders of GraphQL (relations and
// documents, and the extension that installs them per response) live in
// graph/loaders alone; no other package of ours builds one.
func TestDataloadersInOnePlace(t *testing.T) {
	t.Parallel()
	const lib, home = "github.com/vikstrous/dataloadgen", module + "/graph/loaders"
	cmd := exec.Command("go", "list", "-f", "{{.ImportPath}}|{{join .Imports \" \"}}", "./...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	found := false
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, imports, _ := strings.Cut(line, "|")
		for _, imp := range strings.Fields(imports) {
			if imp != lib {
				continue
			}
			if path != home {
				t.Errorf("%s builds dataloaders: they belong in graph/loaders", path)
			}
			found = path == home || found
		}
	}
	if !found {
		t.Errorf("graph/loaders imports no %s: the check checks nothing", lib)
	}
}
