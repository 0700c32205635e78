package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const leafSample = `func (ec *executionContext) _SubLine_description(ctx context.Context, field graphql.CollectedField, obj *domain.SubLine) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_SubLine_description(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Description, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v domain.Status) graphql.Marshaler {
			return ec.marshalNStatus2githubᚗcomᚋdomainᚐStatus(ctx, selections, v)
		},
		true,
		true,
	)
}
func (ec *executionContext) _SubLine_rate(ctx context.Context, field graphql.CollectedField, obj *domain.SubLine) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_SubLine_rate(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Rate, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v *string) graphql.Marshaler {
			return ec.marshalNString2ᚖstring(ctx, selections, v)
		},
		true,
		true,
	)
}
func (ec *executionContext) _SubLine_note(ctx context.Context, field graphql.CollectedField, obj *domain.SubLine) (ret graphql.Marshaler) {
	return graphql.ResolveField(
		ctx,
		ec.OperationContext,
		field,
		func(ctx context.Context, field graphql.CollectedField) (*graphql.FieldContext, error) {
			return ec.fieldContext_SubLine_note(ctx, field)
		},
		func(ctx context.Context) (any, error) {
			return obj.Note, nil
		},
		nil,
		func(ctx context.Context, selections ast.SelectionSet, v *string) graphql.Marshaler {
			return ec.marshalOString2ᚖstring(ctx, selections, v)
		},
		true,
		false,
	)
}
func (ec *executionContext) _SubLine(ctx context.Context, sel ast.SelectionSet, obj *domain.SubLine) graphql.Marshaler {
		case "description":
			out.Values[i] = ec._SubLine_description(ctx, field, obj)
		case "rate":
			out.Values[i] = ec._SubLine_rate(ctx, field, obj)
		case "quantity":
			out.Values[i] = ec._SubLine_quantity(ctx, field, obj)
		case "note":
			out.Values[i] = ec._SubLine_note(ctx, field, obj)
}
`

// TestPlainLeavesRewrite: a plain leaf's call — non-null by value, or
// nullable — becomes its marshaller applied to the struct field; a non-null
// pointer (whose nil ResolveField reports with the field's path) and a field
// not judged plain keep their field function.
func TestPlainLeavesRewrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "sample.generated.go")
	if err := os.WriteFile(file, []byte(leafSample), 0o644); err != nil {
		t.Fatal(err)
	}
	p := &plainLeaves{fields: map[string]bool{"_SubLine_description": true, "_SubLine_rate": true, "_SubLine_note": true}}
	if err := p.rewrite(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	for _, want := range []string{
		"out.Values[i] = ec.marshalNStatus2githubᚗcomᚋdomainᚐStatus(ctx, field.Selections, obj.Description)",
		"out.Values[i] = ec._SubLine_rate(ctx, field, obj)",
		"out.Values[i] = ec._SubLine_quantity(ctx, field, obj)",
		"out.Values[i] = ec.marshalOString2ᚖstring(ctx, field.Selections, obj.Note)",
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("rewritten source lacks %q", want)
		}
	}
	if strings.Contains(string(got), "ec._SubLine_description(ctx, field, obj)") {
		t.Error("the plain leaf still goes through its field function")
	}
}

// TestGeneratedStatementLeavesAreDirect: the committed generated code has the
// rewrite (go generate ran gqlgenrun): the dashboard's sub-line leaves are
// marshalled without a field context each.
func TestGeneratedStatementLeavesAreDirect(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile(filepath.Join("..", "generated", "statements.generated.go"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(src), "ec._StatementSubLine_description(ctx, field, obj)") ||
		!strings.Contains(string(src), "ec.marshalNString2string(ctx, field.Selections, obj.Description)") {
		t.Fatal("statements.generated.go marshals StatementSubLine.description through ResolveField")
	}
}
