package execrt

import (
	"bytes"
	"context"
	"io"

	"github.com/99designs/gqlgen/graphql"
)

// ObjectJSON is graphql.FieldSet for an object none of whose fields is
// resolved concurrently or deferred: the same fields, values and invalid
// count, written as the same JSON object. FieldSet writes through an
// iterator that allocates a copy of every field and a map of the aliases
// already written; in the dashboard query that was a third of the
// allocations. The first field of an alias wins here too (CollectFields
// keeps two only when they came from fragments on unrelated interfaces).
type ObjectJSON struct {
	fields   []graphql.CollectedField
	Values   []graphql.Marshaler
	Invalids uint32
	inline   [4]graphql.Marshaler // a small object's Values: one allocation, not two
}

// NewObjectJSON is the marshaller of an object selecting fields.
func NewObjectJSON(fields []graphql.CollectedField) *ObjectJSON {
	o := &ObjectJSON{fields: fields}
	if len(fields) <= len(o.inline) {
		o.Values = o.inline[:len(fields)]
	} else {
		o.Values = make([]graphql.Marshaler, len(fields))
	}
	return o
}

// Dispatch has nothing to run: no field of the object is concurrent.
func (o *ObjectJSON) Dispatch(context.Context) {}

func (o *ObjectJSON) MarshalGQL(w io.Writer) {
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
func (o *ObjectJSON) written(i int) bool {
	for j := range i {
		if o.fields[j].Alias == o.fields[i].Alias {
			return true
		}
	}
	return false
}
