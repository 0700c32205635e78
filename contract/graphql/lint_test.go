// Package graphql lints the GraphQL schema the server serves with
// graphql-eslint (schema-recommended plus the rules in eslint.config.mjs).
// The npm tools are pinned by contract/package-lock.json and installed on
// first use (npmci).
package graphql

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/haulgraph/haulgraph/graph/generated"
	"github.com/haulgraph/haulgraph/npmci"
)

// root is the repository root, relative to this package's directory.
const root = "../.."

// TestSchemaFilesAreServed pins what the lint reads to what the server
// runs: every schema source compiled into the server is a schema/*.graphqls
// file with the same text, and every such file is compiled in.
func TestSchemaFilesAreServed(t *testing.T) {
	t.Parallel()
	served := map[string]string{}
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	add := func(pos *ast.Position) {
		if pos != nil && pos.Src != nil && !pos.Src.BuiltIn {
			served[filepath.Base(pos.Src.Name)] = pos.Src.Input
		}
	}
	for _, def := range schema.Types {
		add(def.Position)
		for _, f := range def.Fields {
			add(f.Position)
		}
	}
	files, err := filepath.Glob(filepath.Join(root, "schema", "*.graphqls"))
	if err != nil || len(files) == 0 {
		t.Fatalf("schema files: %v (%d)", err, len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(f)
		if got, ok := served[name]; !ok {
			t.Errorf("%s defines nothing the server serves", name)
		} else if got != string(b) {
			t.Errorf("%s differs from the schema compiled in: run go generate ./...", name)
		}
		delete(served, name)
	}
	for name := range served {
		t.Errorf("the server serves %s, which is not in schema/", name)
	}
}

// TestSchemaLint fails on every error-severity finding of graphql-eslint
// over schema/*.graphqls.
func TestSchemaLint(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	npmci.Install(t, "..") // contract/package-lock.json pins the tools

	cmd := exec.CommandContext(ctx, "node", "contract/node_modules/eslint/bin/eslint.js",
		"--config", "contract/graphql/eslint.config.mjs", "--format", "json",
		"schema/")
	cmd.Dir = root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	// eslint exits 1 when it found errors (reported below), 2 when it could
	// not run.
	if exit, ok := err.(*exec.ExitError); err != nil && !(ok && exit.ExitCode() == 1) {
		t.Fatalf("eslint: %v\n%s", err, stderr.String())
	}
	var results []struct {
		FilePath string `json:"filePath"`
		Messages []struct {
			RuleID   *string `json:"ruleId"`
			Severity int     `json:"severity"`
			Message  string  `json:"message"`
			Line     int     `json:"line"`
			Column   int     `json:"column"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
		t.Fatalf("eslint output: %v\n%s", err, stderr.String())
	}
	linted := 0
	for _, r := range results {
		if strings.HasSuffix(r.FilePath, ".graphqls") {
			linted++
		}
		for _, m := range r.Messages {
			if m.Severity < 2 {
				continue
			}
			rule := "parse"
			if m.RuleID != nil {
				rule = *m.RuleID
			}
			t.Errorf("schema/%s:%d:%d %s: %s", filepath.Base(r.FilePath), m.Line, m.Column, rule,
				strings.ReplaceAll(m.Message, "\n", " "))
		}
	}
	files, _ := filepath.Glob(filepath.Join(root, "schema", "*.graphqls"))
	if linted != len(files) || linted == 0 {
		t.Errorf("eslint linted %d schema files, schema/ holds %d", linted, len(files))
	}
}
