package execrt

import (
	"bytes"
	"strings"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestObjectJSONWritesWhatFieldSetWrites: the same fields and values give
// the same bytes as gqlgen's FieldSet, a repeated alias included.
func TestObjectJSONWritesWhatFieldSetWrites(t *testing.T) {
	t.Parallel()
	field := func(alias string) graphql.CollectedField {
		return graphql.CollectedField{Field: &ast.Field{Alias: alias, Name: alias}}
	}
	for _, fields := range [][]graphql.CollectedField{
		nil,
		{field("number")},
		{field("number"), field("title"), field("number"), field("amount")},
	} {
		want, got := graphql.NewFieldSet(fields), NewObjectJSON(fields)
		for i, f := range fields {
			want.Values[i] = graphql.MarshalString(f.Alias + "\"value")
			got.Values[i] = want.Values[i]
		}
		var a, b bytes.Buffer
		want.MarshalGQL(&a)
		got.MarshalGQL(&b)
		if a.String() != b.String() {
			t.Errorf("ObjectJSON wrote %s, FieldSet %s", b.String(), a.String())
		}
		var s strings.Builder // not gqlgen's bytes.Buffer
		got.MarshalGQL(&s)
		if s.String() != a.String() {
			t.Errorf("ObjectJSON wrote %s to a strings.Builder, FieldSet %s", s.String(), a.String())
		}
	}
}
