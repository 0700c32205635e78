package eventschema

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// SchemaBase is the $id prefix of the per-type JSON Schemas.
const SchemaBase = "urn:haulgraph:schemas:events:"

// LoadGraphQL parses the GraphQL schema files of dir (*.graphqls).
func LoadGraphQL(dir string) (*ast.Schema, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.graphqls"))
	if err != nil {
		return nil, err
	}
	var sources []*ast.Source
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		sources = append(sources, &ast.Source{Name: filepath.Base(p), Input: string(b)})
	}
	s, gerr := gqlparser.LoadSchema(sources...)
	if gerr != nil {
		return nil, gerr
	}
	return s, nil
}

// Files are the catalogue's files by their path under contract/:
// asyncapi.json, openapi-webhooks.json and schemas/<event type>.json.
func Files(graphqlDir string) (map[string][]byte, error) {
	schema, err := LoadGraphQL(graphqlDir)
	if err != nil {
		return nil, err
	}
	doc, err := AsyncAPI(schema)
	if err != nil {
		return nil, err
	}
	out := map[string][]byte{}
	if out["asyncapi.json"], err = render(doc); err != nil {
		return nil, err
	}
	if out["openapi-webhooks.json"], err = render(OpenAPIWebhooks()); err != nil {
		return nil, err
	}
	for _, t := range EventTypes() {
		if out["schemas/"+t+".json"], err = render(EventSchema(t, SchemaBase)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// render is v as indented JSON, keys sorted, without HTML escaping.
func render(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return b.Bytes(), err
}
