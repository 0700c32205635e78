package layering

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestREADMELayoutNamesEveryFolder fails when README.md's layout table and
// the repository's top-level folders differ: a folder the table does not
// name, or a row naming one that is gone.
func TestREADMELayoutNamesEveryFolder(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	table := layoutFolders(string(readme))
	if len(table) == 0 {
		t.Fatal("README.md has no table under ## Layout")
	}
	out, err := exec.Command("git", "-C", "..", "ls-files", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err) // tracked files and new ones git does not ignore
	}
	var folders []string
	for _, f := range strings.Split(string(out), "\n") {
		if dir, _, ok := strings.Cut(f, "/"); ok && !strings.HasPrefix(dir, ".") && !slices.Contains(folders, dir) {
			folders = append(folders, dir)
		}
	}
	for _, f := range folders {
		if !slices.Contains(table, f) {
			t.Errorf("folder %s/ has no row in README.md's layout table", f)
		}
	}
	for _, f := range table {
		if !slices.Contains(folders, f) {
			t.Errorf("README.md's layout table names %s, which is no top-level folder", f)
		}
	}
}

// layoutFolders is the top-level folders the first column of the table
// under "## Layout" names (`cmd/haulgraph` names cmd).
func layoutFolders(readme string) []string {
	_, section, _ := strings.Cut(readme, "\n## Layout\n")
	section, _, _ = strings.Cut(section, "\n## ")
	code := regexp.MustCompile("`([^`]+)`")
	var names []string
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 || !strings.HasPrefix(line, "|") {
			continue
		}
		for _, m := range code.FindAllStringSubmatch(cells[1], -1) {
			dir, _, _ := strings.Cut(m[1], "/")
			if !slices.Contains(names, dir) {
				names = append(names, dir)
			}
		}
	}
	return names
}
