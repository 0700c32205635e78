package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/99designs/gqlgen/codegen"
)

// plainLeaves: gqlgen resolves every field through graphql.ResolveField,
// which allocates a field context, a path and three closures, even for a
// scalar, enum, plain object (isPlain: no resolver anywhere below it, so
// nothing can read the missing field context) or list of plain objects held
// in a struct field — non-null and by value, or nullable (a statement's
// number, a sub-line's amount, a line item's sub-lines, a money's
// currency, a total that may be absent): in the dashboard
// query that is ~20,000 field contexts per request for values that cannot
// fail. This pass rewrites, in
// the object marshallers, the call of such a field's function to the
// marshaller it would end in, applied to the struct field itself:
//
//	out.Values[i] = ec._StatementSubLine_description(ctx, field, obj)
//	out.Values[i] = ec.marshalNString2string(ctx, field.Selections, obj.Description)
//
// The bytes written are the same: ResolveField would call that marshaller
// with that value. What is skipped is only what such a field never needs:
// field middleware (no directive; the schema's extensions hook no fields),
// panic recovery around a field read, the null check of a value that is
// not a pointer or may be null (ResolveField hands a nil pointer of a
// nullable field to the same marshaller, which writes null), and the path
// segment that only an error or a @defer below
// would use (a plain value has neither). A field function of any other
// shape is left alone.
type plainLeaves struct{ fields map[string]bool }

func (p *plainLeaves) Name() string { return "plainleaves" }

func (p *plainLeaves) GenerateCode(data *codegen.Data) error {
	objects := objectsByName(data)
	plain := map[string]bool{}
	p.fields = map[string]bool{}
	for _, o := range data.Objects {
		for _, f := range o.Fields {
			// A non-null pointer is left alone: its nil is an error, whose
			// path needs the field context.
			if f.IsResolver || f.IsMethod() || len(f.Directives) > 0 || (f.TypeReference.IsPtr() && f.TypeReference.GQL.NonNull) ||
				!isPlain(f.TypeReference.Definition, objects, plain) {
				continue
			}
			p.fields["_"+o.Name+"_"+f.Name] = true
		}
	}
	return nil
}

// leafFunc matches a plain leaf's field function exactly as gqlgen writes it:
// the struct field read, no middleware, a marshaller of a non-pointer value.
var leafFunc = regexp.MustCompile(`(?m)^func \(ec \*executionContext\) (_\w+)\(ctx context\.Context, field graphql\.CollectedField, obj \*[\w.]+\) \(ret graphql\.Marshaler\) \{
	return graphql\.ResolveField\(
		ctx,
		ec\.OperationContext,
		field,
		func\(ctx context\.Context, field graphql\.CollectedField\) \(\*graphql\.FieldContext, error\) \{
			return ec\.fieldContext\w+\(ctx, field\)
		\},
		func\(ctx context\.Context\) \(any, error\) \{
			return obj\.([\w.]+), nil
		\},
		nil,
		func\(ctx context\.Context, selections ast\.SelectionSet, v (?:\[\])?(\*?)[^\s)*\[]+\) graphql\.Marshaler \{
			return ec\.(marshal[NO][^\s(]+)\(ctx, selections, v\)
		\},
		true,
		(?:true|false),
	\)
\}`)

// leafCall is the call of a field function in an object marshaller.
var leafCall = regexp.MustCompile(`out\.Values\[i\] = ec\.(_\w+)\(ctx, field, obj\)`)

func (p *plainLeaves) rewrite(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.generated.go"))
	if err != nil {
		return err
	}
	direct := map[string]string{} // field function → its direct marshalling
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		for _, m := range leafFunc.FindAllSubmatch(src, -1) {
			name, pointer, marshal := string(m[1]), len(m[3]) > 0, string(m[4])
			if p.fields[name] && (!pointer || strings.HasPrefix(marshal, "marshalO")) {
				direct[name] = fmt.Sprintf("ec.%s(ctx, field.Selections, obj.%s)", marshal, m[2])
			}
		}
	}
	if len(direct) == 0 && len(p.fields) > 0 {
		return fmt.Errorf("found none of %d plain leaf functions: gqlgen's generated code changed shape", len(p.fields))
	}
	_, err = editGenerated(dir, func(_ string, body []byte) []byte {
		return leafCall.ReplaceAllFunc(body, func(call []byte) []byte {
			if d, ok := direct[string(leafCall.FindSubmatch(call)[1])]; ok {
				return []byte("out.Values[i] = " + d)
			}
			return call
		})
	})
	return err
}
