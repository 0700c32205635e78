package readme

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
)

// TestWalkOrder: README.md first, then the guides in the order README.md's
// "Where next" links them, then every other docs/*.md by name; a link to a
// missing guide is an error.
func TestWalkOrder(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"docs/a.md", "docs/b.md", "docs/z.md", "docs/later.md", "docs/intro.md"} {
		write(f, "# x\n")
	}
	write("README.md", strings.Join([]string{
		"# R", "See [intro](docs/intro.md).", "## Where next",
		"1. [z](docs/z.md#part)", "2. [b](docs/b.md) and [z again](docs/z.md)",
		"## Layout", "[later](docs/later.md)", "",
	}, "\n"))
	got, err := Walk(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"README.md", "docs/z.md", "docs/b.md", "docs/a.md", "docs/intro.md", "docs/later.md"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Walk = %v, want %v", got, want)
	}
	write("README.md", "# R\n## Where next\n- [gone](docs/gone.md)\n")
	if _, err := Walk(root); err == nil || !strings.Contains(err.Error(), "docs/gone.md") {
		t.Errorf("a link to a missing guide: %v", err)
	}
}

// TestEveryGuideWalked: the repository's README.md lists every guide that
// has runnable blocks in "Where next", so TestREADME runs each of them in
// the order the README gives, after the first five minutes.
func TestEveryGuideWalked(t *testing.T) {
	t.Parallel()
	root := apptest.RepoRoot(t)
	files, err := Walk(root)
	if err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(root, "README.md"))
	_, next, _ := strings.Cut(string(md), "\n## Where next\n")
	for _, f := range files[1:] {
		text, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := Blocks(string(text))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if len(Steps(blocks)) > 0 && !strings.Contains(next, "("+f) {
			t.Errorf("%s has runnable blocks but README.md's Where next does not link it: its place in the run is unknown", f)
		}
	}
	if len(files) < 13 {
		t.Errorf("walked only %v", files)
	}
}

// TestLinks: every relative link of README.md and of the guides names a file
// of the repository and, with an #anchor, a heading of that file.
func TestLinks(t *testing.T) {
	t.Parallel()
	root := apptest.RepoRoot(t)
	files, err := Walk(root)
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		b, _ := os.ReadFile(path)
		anchors[path] = Anchors(string(b))
		return anchors[path]
	}
	checked := 0
	for _, f := range files {
		md, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range Links(string(md)) {
			if strings.Contains(l.Target, "://") || strings.HasPrefix(l.Target, "mailto:") || strings.HasPrefix(l.Target, "<") {
				continue
			}
			path, anchor, _ := strings.Cut(l.Target, "#")
			target := filepath.Join(root, f) // "#anchor" alone: this file
			if path != "" {
				target = filepath.Join(root, filepath.Dir(f), filepath.FromSlash(path))
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s line %d: %s: no such file", f, l.Line, l.Target)
				continue
			}
			if anchor != "" && strings.HasSuffix(target, ".md") && !anchorsOf(target)[anchor] {
				t.Errorf("%s line %d: %s: no heading with that anchor", f, l.Line, l.Target)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("checked only %d links", checked)
	}
}

func TestAnchors(t *testing.T) {
	t.Parallel()
	got := Anchors("# Dispatch board (`/board`)\n## Writes (GraphQL, `POST /graphql`)\n```sh\n# not a heading\n```\n## Events ([api-contract.md](api-contract.md) §6.3, §6.4)\n## Events ([x](x) §6.3, §6.4)\n### Admin listener, metrics and outages\n")
	for _, a := range []string{"dispatch-board-board", "writes-graphql-post-graphql", "events-api-contractmd-63-64", "events-x-63-64", "admin-listener-metrics-and-outages"} {
		if !got[a] {
			t.Errorf("no anchor %q in %v", a, got)
		}
	}
	if got["not-a-heading"] {
		t.Error("a comment in a code block became a heading")
	}
}
