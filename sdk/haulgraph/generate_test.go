package haulgraph_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// types.gen.go is what `go generate` writes from the served document today.
func TestTypesGenerated(t *testing.T) {
	t.Parallel()
	config, err := os.ReadFile("oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "types.gen.go")
	tmp := filepath.Join(t.TempDir(), "oapi-codegen.yaml")
	if err := os.WriteFile(tmp, []byte(strings.Replace(string(config), "output: types.gen.go", "output: "+out, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("go", "tool", "oapi-codegen", "-config", tmp, "../../rest/openapi.json").CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, b)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("types.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, have) {
		t.Fatal("sdk/haulgraph/types.gen.go is stale: run `go generate ./sdk/...` and commit it")
	}
}
