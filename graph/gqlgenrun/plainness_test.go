package main

import (
	"go/types"
	"testing"

	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/codegen/config"
	"github.com/vektah/gqlparser/v2/ast"
)

// sample is a schema as gqlgen's BuildData hands it over: a statement
// whose driver resolves its documents, sub-lines of plain money.
type sample struct {
	data                 *codegen.Data
	money, subLine       *codegen.Object
	statement, driver    *codegen.Object
	subLines, statements *config.TypeReference
}

func newSample() *sample {
	pkg := types.NewPackage("example.com/m", "m")
	named := func(name string) *types.Named {
		return types.NewNamed(types.NewTypeName(0, pkg, name, nil), types.NewStruct(nil, nil), nil)
	}
	str := &ast.Definition{Kind: ast.Scalar, Name: "String"}
	s := &sample{data: &codegen.Data{}}
	object := func(name string) *codegen.Object {
		o := &codegen.Object{Definition: &ast.Definition{Kind: ast.Object, Name: name}, Type: named(name)}
		s.data.Objects = append(s.data.Objects, o)
		return o
	}
	field := func(o *codegen.Object, name string, def *ast.Definition, gql *ast.Type, goType types.Type) *codegen.Field {
		f := &codegen.Field{
			FieldDefinition: &ast.FieldDefinition{Name: name, Type: gql},
			TypeReference:   &config.TypeReference{Definition: def, GQL: gql, GO: goType},
			GoFieldType:     codegen.GoFieldVariable, GoFieldName: name, Object: o,
		}
		o.Fields = append(o.Fields, f)
		return f
	}
	s.money, s.subLine, s.statement, s.driver = object("Money"), object("SubLine"), object("Statement"), object("Driver")
	document := object("Document")
	field(document, "id", str, ast.NonNullNamedType("String", nil), types.Typ[types.String])
	field(s.money, "amount", str, ast.NonNullNamedType("String", nil), types.Typ[types.String])
	field(s.money, "currency", str, ast.NamedType("String", nil), types.NewPointer(types.Typ[types.String]))
	field(s.subLine, "description", str, ast.NonNullNamedType("String", nil), types.Typ[types.String])
	field(s.subLine, "amount", s.money.Definition, ast.NamedType("Money", nil), types.NewPointer(s.money.Type))
	field(s.subLine, "total", s.money.Definition, ast.NonNullNamedType("Money", nil), types.NewPointer(s.money.Type))
	field(s.subLine, "rate", s.money.Definition, ast.NonNullNamedType("Money", nil), s.money.Type).GoFieldType = codegen.GoFieldMethod
	field(s.driver, "name", str, ast.NonNullNamedType("String", nil), types.Typ[types.String])
	field(s.driver, "documents", document.Definition, ast.NonNullListType(ast.NonNullNamedType("Document", nil), nil),
		types.NewSlice(types.NewPointer(document.Type))).IsResolver = true
	field(s.statement, "number", str, ast.NonNullNamedType("String", nil), types.Typ[types.String])
	field(s.statement, "driver", s.driver.Definition, ast.NamedType("Driver", nil), types.NewPointer(s.driver.Type))
	s.subLines = field(s.statement, "subLines", s.subLine.Definition, ast.NonNullListType(ast.NonNullNamedType("SubLine", nil), nil),
		types.NewSlice(s.subLine.Type)).TypeReference
	s.statements = &config.TypeReference{Definition: s.statement.Definition,
		GQL: ast.NonNullListType(ast.NonNullNamedType("Statement", nil), nil), GO: types.NewSlice(types.NewPointer(s.statement.Type))}
	return s
}

func fieldOf(o *codegen.Object, name string) *codegen.Field {
	for _, f := range o.Fields {
		if f.Name == name {
			return f
		}
	}
	panic(name)
}

// TestListsInOrder: a list of objects with no resolver anywhere below is
// always marshalled in order; one whose elements reach a resolver (a
// statement's driver's documents) is decided per request; the table names
// each object's resolver fields.
func TestListsInOrder(t *testing.T) {
	t.Parallel()
	s := newSample()
	p := newPlainness(s.data)
	if !p.plainList(s.subLines) || p.waitingList(s.subLines) != "" {
		t.Errorf("sub-lines: plainList %v, waitingList %q; want in order always", p.plainList(s.subLines), p.waitingList(s.subLines))
	}
	if p.plainList(s.statements) || p.waitingList(s.statements) != "Statement" {
		t.Errorf("statements: plainList %v, waitingList %q; want decided per request", p.plainList(s.statements), p.waitingList(s.statements))
	}
	if got := p.resolvers["Driver"]; len(got) != 1 || got[0] != "documents" {
		t.Errorf("Driver's resolver fields %v, want [documents]", got)
	}
	if p.plainList(fieldOf(s.statement, "number").TypeReference) {
		t.Error("a scalar counts as a list of objects")
	}
}

// TestDirectFields: plain struct fields — a value, a nullable pointer — are
// marshalled straight from the struct; a non-null pointer (its nil is an
// error with the field's path), a method, a resolver, a field whose type
// reaches a resolver, or any field under a FIELD directive are not.
func TestDirectFields(t *testing.T) {
	t.Parallel()
	s := newSample()
	p := newPlainness(s.data)
	for _, c := range []struct {
		f    *codegen.Field
		want bool
	}{
		{fieldOf(s.subLine, "description"), true},
		{fieldOf(s.subLine, "amount"), true},
		{fieldOf(s.money, "currency"), true},
		{fieldOf(s.subLine, "total"), false},
		{fieldOf(s.subLine, "rate"), false},
		{fieldOf(s.driver, "documents"), false},
		{fieldOf(s.statement, "driver"), false},
		{fieldOf(s.statement, "subLines"), true},
	} {
		if got := p.directField(c.f); got != c.want {
			t.Errorf("%s.%s: directField %v, want %v", c.f.Object.Name, c.f.Name, got, c.want)
		}
	}
	p.fieldMW = true
	if p.directField(fieldOf(s.subLine, "description")) {
		t.Error("a field under a FIELD directive is marshalled without it")
	}
}
