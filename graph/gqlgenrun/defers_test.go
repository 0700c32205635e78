package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const deferSample = `func (ec *executionContext) _Plain(ctx context.Context, sel ast.SelectionSet, obj *domain.Plain) graphql.Marshaler {
	fields := graphql.CollectFields(ec.OperationContext, sel, plainImplementors)

	out := graphql.NewFieldSet(fields)
	deferredFieldSet := graphql.NewFieldSet(nil)
	deferLabelToView := make(map[string]*graphql.FieldSetView)
	out.Dispatch(ctx)
` + "%s" + `
	return out
}

func (ec *executionContext) _Deferring(ctx context.Context, sel ast.SelectionSet, obj *domain.Deferring) graphql.Marshaler {
	deferredFieldSet := graphql.NewFieldSet(nil)
	deferLabelToView := make(map[string]*graphql.FieldSetView)
	deferLabelToView[deferrable.Label] = view
` + "%s" + `
	return out
}
`

// TestGuardDefers: the @defer hand-over runs only when something was
// deferred, and an object with no deferrable field builds no map or field
// set; one that has one keeps them.
func TestGuardDefers(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "sample.generated.go")
	src := strings.ReplaceAll(deferSample, "%s", string(deferHandOver))
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := guardDefers(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	plain, deferring, _ := strings.Cut(string(got), "func (ec *executionContext) _Deferring")
	for name, part := range map[string]string{"_Plain": plain, "_Deferring": deferring} {
		if strings.Count(part, string(guardedHandOver)) != 1 || strings.Contains(part, string(deferHandOver)) {
			t.Errorf("%s: the hand-over is not guarded:\n%s", name, part)
		}
	}
	if !strings.Contains(plain, string(deferNil)) {
		t.Errorf("_Plain still builds its defer map:\n%s", plain)
	}
	if !strings.Contains(deferring, string(deferMake)) {
		t.Errorf("_Deferring lost the map it writes:\n%s", deferring)
	}
	if err := guardDefers(t.TempDir()); err == nil {
		t.Error("a directory without hand-overs was accepted: a change of gqlgen's output would go unnoticed")
	}
}

// TestPlainObjects: an object marshaller left without defer state and with
// no concurrent field is pointed at objectJSON; one with a concurrent field
// keeps gqlgen's FieldSet.
func TestPlainObjects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "sample.generated.go")
	src := `func (ec *executionContext) _Plain(ctx context.Context, sel ast.SelectionSet, obj *domain.Plain) graphql.Marshaler {
	out := graphql.NewFieldSet(fields)
	` + string(deferNil) + `}

func (ec *executionContext) _Waits(ctx context.Context, sel ast.SelectionSet, obj *domain.Waits) graphql.Marshaler {
	out := graphql.NewFieldSet(fields)
	` + string(deferNil) + `	out.Concurrently(i, func(ctx context.Context) (res graphql.Marshaler) { return nil })
}
`
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := plainObjects(dir); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	plain, waits, _ := strings.Cut(string(got), "func (ec *executionContext) _Waits")
	if !strings.Contains(plain, string(objectJSONMake)) {
		t.Errorf("_Plain still uses a FieldSet:\n%s", plain)
	}
	if !strings.Contains(waits, string(fieldSetMake)) {
		t.Errorf("_Waits lost its FieldSet:\n%s", waits)
	}
}
