package rest_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/haulgraph/haulgraph/rest"
)

// The served document is the committed openapi.json, and that file is what
// `go generate` writes from openapi.yaml and domain's lists today.
func TestOpenAPIGenerated(t *testing.T) {
	t.Parallel()
	want, err := rest.BuildOpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	onDisk, err := os.ReadFile("openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	_, served, err := rest.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(onDisk, want) || !bytes.Equal(served, want) {
		t.Fatal("rest/openapi.json is stale: run `go generate ./rest/` and commit it")
	}
}
