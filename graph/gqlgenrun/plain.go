package main

import (
	"go/types"
	"sort"
	"strings"

	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/codegen/config"
	"github.com/vektah/gqlparser/v2/ast"
)

// plainness is what the changed templates ask of the whole schema (a
// per-file build sees only its own objects): which objects can never wait
// on a resolver, and each object's resolver fields.
type plainness struct {
	objects   map[string]*codegen.Object
	plain     map[string]bool // memo of isPlain
	resolvers map[string][]string
	fieldMW   bool // a FIELD directive wraps every field: none is direct
}

func newPlainness(data *codegen.Data) *plainness {
	p := &plainness{
		objects:   map[string]*codegen.Object{},
		plain:     map[string]bool{},
		resolvers: map[string][]string{},
		fieldMW:   len(data.AllDirectives.LocationDirectives("FIELD")) > 0,
	}
	for _, o := range data.Objects {
		p.objects[o.Name] = o
		fields := []string{}
		for _, f := range o.Fields {
			if f.IsConcurrent() {
				fields = append(fields, f.Name)
			}
		}
		sort.Strings(fields)
		p.resolvers[o.Name] = fields
	}
	return p
}

// isPlain reports whether marshalling def can never wait on a resolver: an
// object whose fields have no resolvers and whose object-typed fields are
// plain too (an element marshalled in order must not sit in a dataloader's
// batch window while the others wait). Interfaces and unions are not
// judged. A cycle counts as plain until a resolver is found on it.
func (p *plainness) isPlain(def *ast.Definition) bool {
	if def.Kind == ast.Scalar || def.Kind == ast.Enum {
		return true
	}
	o := p.objects[def.Name]
	if def.Kind != ast.Object || o == nil {
		return false
	}
	if v, seen := p.plain[def.Name]; seen {
		return v
	}
	p.plain[def.Name] = true // provisional, for cycles
	ok := !o.IsConcurrent()
	for _, f := range o.Fields {
		if !ok {
			break
		}
		if f.TypeReference != nil && f.TypeReference.Definition != nil {
			ok = p.isPlain(f.TypeReference.Definition)
		}
	}
	p.plain[def.Name] = ok
	return ok
}

// listElem is the object a list of objects holds, or nil.
func listElem(ref *config.TypeReference) *ast.Definition {
	if !ref.IsSlice() || ref.Elem() == nil || ref.Elem().IsSlice() {
		return nil
	}
	if def := ref.Elem().Definition; def != nil && def.Kind == ast.Object {
		return def
	}
	return nil
}

// plainList: a list of plain objects, marshalled in order.
func (p *plainness) plainList(ref *config.TypeReference) bool {
	def := listElem(ref)
	return def != nil && p.isPlain(def)
}

// waitingList names the element object of a list of objects that may wait
// (marshalled in order unless the request's selection reaches a resolver),
// or is "".
func (p *plainness) waitingList(ref *config.TypeReference) string {
	if def := listElem(ref); def != nil && !p.isPlain(def) {
		return def.Name
	}
	return ""
}

// directField reports whether f is marshalled straight from its struct
// field instead of through graphql.ResolveField, which allocates a field
// context, a path and three closures per value: a struct field (no
// resolver, method, map or directive) of a plain type — non-null and by
// value, or nullable (a statement's number, a sub-line's amount, a line
// item's sub-lines, a money's currency, a total that may be absent); in the
// dashboard query that is ~20,000 field contexts per request for values
// that cannot fail. The bytes written are the same: ResolveField would call
// that marshaller with that value. What is skipped is only what such a
// field never needs: field middleware, panic recovery around a field read,
// and the path segment that only an error or a @defer below would use. A
// non-null pointer is left alone: its nil is an error, whose path needs the
// field context.
func (p *plainness) directField(f *codegen.Field) bool {
	if f.Object.Root || f.Object.Stream || p.fieldMW || f.IsResolver || f.IsMethod() || f.IsMap() ||
		f.IsBatch() || !f.IsVariable() || f.HasHaser || len(f.Directives) > 0 {
		return false
	}
	t := f.TypeReference
	if t == nil || t.Definition == nil || t.IsRoot || (t.IsPtr() && t.GQL.NonNull) || !p.isPlain(t.Definition) {
		return false
	}
	// A value or a slice of values or pointers of a named type: a pointer
	// must be nullable (its nil is written as null).
	goType := strings.TrimPrefix(types.TypeString(t.GO, nil), "[]")
	pointer := strings.HasPrefix(goType, "*")
	if strings.ContainsAny(strings.TrimPrefix(goType, "*"), " )*[") {
		return false
	}
	marshal := t.MarshalFunc()
	return strings.HasPrefix(marshal, "marshalO") || (!pointer && strings.HasPrefix(marshal, "marshalN"))
}
