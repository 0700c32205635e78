package operation

import (
	"encoding/json"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// TestAppendResponseMatchesEncodingJSON: every shape of response comes out
// as the same JSON value encoding/json writes for it.
func TestAppendResponseMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	yes := true
	for _, resp := range []*graphql.Response{
		{Data: json.RawMessage(`{"a":1,"b":"<x> & \"y\""}`)},
		{},
		{Errors: gqlerror.List{{Message: "no", Extensions: map[string]any{"code": "NOT_FOUND"}}}, Data: json.RawMessage(`null`)},
		{Data: json.RawMessage(`{"a":[]}`), Extensions: map[string]any{"cost": map[string]any{"requested": 3}}},
		{Data: json.RawMessage(`{}`), Label: "l", Path: ast.Path{ast.PathName("a"), ast.PathIndex(1)}, HasNext: &yes},
	} {
		got, err := EncodeResponse(resp)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(resp)
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%s is not JSON: %v", got, err)
		}
		_ = json.Unmarshal(want, &w)
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Errorf("wrote %s, encoding/json %s", got, want)
		}
	}
}
