package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedStatementLeavesAreDirect: the committed generated code was
// rendered from the changed templates: the dashboard's sub-line leaves are
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

// TestTemplatesFollowGqlgen: templates/ holds every exec template of the
// gqlgen version go.mod pins, and each one without a `haulgraph:` change is
// gqlgen's byte for byte — an upgrade that does not carry the templates
// across fails here, not in a subtly different output.
func TestTemplatesFollowGqlgen(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/99designs/gqlgen").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	upstream, err := filepath.Glob(filepath.Join(strings.TrimSpace(string(out)), "codegen", "*.gotpl"))
	if err != nil || len(upstream) == 0 {
		t.Fatalf("no gqlgen templates found (%v)", err)
	}
	changed := 0
	for _, f := range upstream {
		theirs, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		ours, err := os.ReadFile(filepath.Join("templates", filepath.Base(f)))
		if err != nil {
			t.Errorf("templates/ lacks gqlgen's %s", filepath.Base(f))
			continue
		}
		if bytes.Contains(ours, []byte("haulgraph:")) {
			changed++
			continue
		}
		if !bytes.Equal(ours, theirs) {
			t.Errorf("templates/%s differs from gqlgen's without a haulgraph: mark", filepath.Base(f))
		}
	}
	if changed != 3 {
		t.Errorf("%d templates carry haulgraph: changes, want 3 (object, type, internal!)", changed)
	}
}

// TestGeneratedOnly: every file of graph/generated is written by go
// generate (the hand-written runtime lives in graph/execrt), and the
// generated code calls that runtime: the sized query buffer, the sequential
// lists and the plain objects.
func TestGeneratedOnly(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "generated", "*"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no generated files (%v)", err)
	}
	var all strings.Builder
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(src), "\n")
		if !strings.HasPrefix(first, "// Code generated ") || !strings.HasSuffix(first, "DO NOT EDIT.") {
			t.Errorf("%s is not generated (first line %q)", filepath.Base(f), first)
		}
		all.Write(src)
	}
	for _, want := range []string{
		"buf := size.Buffer()",
		"execrt.MarshalSliceSequentially(",
		"resolverFields.MarshalSliceUnlessWaiting(ctx, sel, \"SettlementStatement\",",
		"out := execrt.NewObjectJSON(fields)",
		"if len(deferLabelToView) > 0 {",
	} {
		if !strings.Contains(all.String(), want) {
			t.Errorf("graph/generated lacks %q", want)
		}
	}
}
