package generated

// Hand-written (not generated): graph/gqlgenrun points the marshallers of
// objects that resolve nothing concurrently and defer nothing here.

import (
	"context"
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// objectJSON is graphql.FieldSet for an object none of whose fields is
// resolved concurrently or deferred: the same fields, values and invalid
// count, written as the same JSON object. FieldSet writes through an
// iterator that allocates a copy of every field and a map of the aliases
// already written; in the dashboard query that was a third of the
// allocations. The first field of an alias wins here too (CollectFields
// keeps two only when they came from fragments on unrelated interfaces).
type objectJSON struct {
	fields   []graphql.CollectedField
	Values   []graphql.Marshaler
	Invalids uint32
}

func newObjectJSON(fields []graphql.CollectedField) *objectJSON {
	return &objectJSON{fields: fields, Values: make([]graphql.Marshaler, len(fields))}
}

// Dispatch has nothing to run: no field of the object is concurrent.
func (o *objectJSON) Dispatch(context.Context) {}

func (o *objectJSON) MarshalGQL(w io.Writer) {
	_, _ = io.WriteString(w, "{")
	for i := range o.fields {
		if o.written(i) {
			continue
		}
		if i > 0 {
			_, _ = io.WriteString(w, ",")
		}
		// An alias is a GraphQL name ([_A-Za-z][_0-9A-Za-z]*): nothing to escape.
		_, _ = io.WriteString(w, `"`)
		_, _ = io.WriteString(w, o.fields[i].Alias)
		_, _ = io.WriteString(w, `":`)
		o.Values[i].MarshalGQL(w)
	}
	_, _ = io.WriteString(w, "}")
}

// written reports whether a field before i has i's alias.
func (o *objectJSON) written(i int) bool {
	for j := range i {
		if o.fields[j].Alias == o.fields[i].Alias {
			return true
		}
	}
	return false
}
