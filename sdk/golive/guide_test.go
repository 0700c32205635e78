package golive

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every Go snippet of docs/sdk-go.md is an excerpt of an example program,
// so the guide shows code that compiles and that the tests run.
func TestGuideExcerpts(t *testing.T) {
	t.Parallel()
	guide, err := os.ReadFile("../../docs/sdk-go.md")
	if err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(sdkDir, "examples/*/main.go"))
	if err != nil || len(files) < 4 {
		t.Fatalf("examples: %v %v", files, err)
	}
	var sources []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sources = append(sources, string(b))
	}
	blocks := regexp.MustCompile("(?s)```go\n(.*?)```").FindAllStringSubmatch(string(guide), -1)
	if len(blocks) < 5 {
		t.Fatalf("the guide has %d Go snippets", len(blocks))
	}
	for _, b := range blocks {
		found := false
		for _, s := range sources {
			found = found || strings.Contains(s, b[1])
		}
		if !found {
			t.Errorf("this snippet of docs/sdk-go.md is in no example:\n%s", b[1])
		}
	}
}
