package generated

// Hand-written (not generated): graph/gqlgenrun points the marshallers of
// objects that resolve nothing concurrently and defer nothing here.

import (
	"bytes"
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
	inline   [4]graphql.Marshaler // a small object's Values: one allocation, not two
}

func newObjectJSON(fields []graphql.CollectedField) *objectJSON {
	o := &objectJSON{fields: fields}
	if len(fields) <= len(o.inline) {
		o.Values = o.inline[:len(fields)]
	} else {
		o.Values = make([]graphql.Marshaler, len(fields))
	}
	return o
}

// Dispatch has nothing to run: no field of the object is concurrent.
func (o *objectJSON) Dispatch(context.Context) {}

func (o *objectJSON) MarshalGQL(w io.Writer) {
	b, ok := w.(*bytes.Buffer)
	if !ok { // gqlgen writes into a bytes.Buffer; anything else gets one
		var own bytes.Buffer
		o.MarshalGQL(&own)
		_, _ = w.Write(own.Bytes())
		return
	}
	b.WriteByte('{')
	first := true
	for i := range o.fields {
		if o.written(i) {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		// An alias is a GraphQL name ([_A-Za-z][_0-9A-Za-z]*): nothing to escape.
		b.WriteByte('"')
		b.WriteString(o.fields[i].Alias)
		b.WriteString(`":`)
		o.Values[i].MarshalGQL(b)
	}
	b.WriteByte('}')
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
