// Command gqlgenrun is `gqlgen generate` (gqlgen.yml) plus changes to the
// execution code it writes, each a pass over the generated files that fails
// when gqlgen's output no longer has the shape it rewrites:
//
//   - a list of objects none of whose fields has a resolver is marshalled
//     element by element in the calling goroutine (plainLists), and so is a
//     list whose selection reaches no resolver field (waitingLists);
//   - a plain leaf or plain object is marshalled straight from its struct
//     field (plainLeaves);
//   - the @defer hand-over runs only when something was deferred
//     (guardDefers);
//   - an object that resolves nothing concurrently is written by objectJSON
//     (plainObjects);
//   - a query's response buffer starts at the size its text needed last
//     time (sizeQueryBuffer).
//
// gqlgen marshals every list of objects through
// graphql.MarshalSliceConcurrently, one goroutine per element. That pays off
// only where an element resolves something that may wait (a dataloader
// fetch, as SettlementStatement.driver does); for plain structs — line
// items, sub-lines, money — it is pure cost: in the dashboard query
// (100 statements) ~1,100 goroutines per request, their stack growth and GC
// took half the server's CPU. gqlgen has no option for this (exec.worker_limit
// still starts a goroutine per element, only fewer at once), so this command
// rewrites the call in exactly the marshal functions of such lists to
// marshalSliceSequentially (graph/generated/marshal_sequential.go), which
// keeps gqlgen's per-element field context and panic handling.
package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/99designs/gqlgen/api"
	"github.com/99designs/gqlgen/codegen"
	"github.com/99designs/gqlgen/codegen/config"
	"github.com/vektah/gqlparser/v2/ast"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gqlgenrun:", err)
		os.Exit(1)
	}
}

func run() error {
	cfg, err := config.LoadConfigFromDefaultLocations()
	if err != nil {
		return err
	}
	lists, waiting, leaves := &plainLists{}, &waitingLists{}, &plainLeaves{}
	if err := api.Generate(cfg, api.AddPlugin(lists), api.AddPlugin(waiting), api.AddPlugin(leaves)); err != nil {
		return err
	}
	if err := lists.rewrite(cfg.Exec.Dir()); err != nil {
		return err
	}
	if err := waiting.rewrite(cfg.Exec.Dir()); err != nil {
		return err
	}
	if err := guardDefers(cfg.Exec.Dir()); err != nil {
		return err
	}
	if err := plainObjects(cfg.Exec.Dir()); err != nil {
		return err
	}
	if err := sizeQueryBuffer(cfg.Exec.Dir()); err != nil {
		return err
	}
	return leaves.rewrite(cfg.Exec.Dir())
}

// plainLists collects, while gqlgen builds its data, the marshal functions
// of lists whose elements are objects without concurrent (resolver) fields.
type plainLists struct{ funcs map[string]bool }

func (p *plainLists) Name() string { return "plainlists" }

func (p *plainLists) GenerateCode(data *codegen.Data) error {
	objects := objectsByName(data)
	p.funcs = map[string]bool{}
	plain := map[string]bool{}
	for _, ref := range data.ReferencedTypes {
		if !ref.IsSlice() || ref.Elem() == nil || ref.Elem().IsSlice() {
			continue
		}
		if def := ref.Elem().Definition; def.Kind == ast.Object && isPlain(def, objects, plain) {
			p.funcs[ref.MarshalFunc()] = true
		}
	}
	return nil
}

// objectsByName indexes the schema's objects by their GraphQL name.
func objectsByName(data *codegen.Data) map[string]*codegen.Object {
	objects := map[string]*codegen.Object{}
	for _, o := range data.Objects {
		objects[o.Name] = o
	}
	return objects
}

// isPlain reports whether marshalling def can never wait on a resolver: an
// object whose fields have no resolvers and whose object-typed fields are
// plain too (an element marshalled in order must not sit in a dataloader's
// batch window while the others wait). Interfaces and unions are not
// judged. A cycle counts as plain until a resolver is found on it.
func isPlain(def *ast.Definition, objects map[string]*codegen.Object, memo map[string]bool) bool {
	if def.Kind == ast.Scalar || def.Kind == ast.Enum {
		return true
	}
	o := objects[def.Name]
	if def.Kind != ast.Object || o == nil {
		return false
	}
	if v, seen := memo[def.Name]; seen {
		return v
	}
	memo[def.Name] = true // provisional, for cycles
	ok := !o.IsConcurrent()
	for _, f := range o.Fields {
		if !ok {
			break
		}
		if f.TypeReference != nil && f.TypeReference.Definition != nil {
			ok = isPlain(f.TypeReference.Definition, objects, memo)
		}
	}
	memo[def.Name] = ok
	return ok
}

var funcDecl = regexp.MustCompile(`(?m)^func \(ec \*executionContext\) ([^\s(]+)\(`)

// rewrite replaces MarshalSliceConcurrently inside the collected functions
// of every generated file in dir.
func (p *plainLists) rewrite(dir string) error {
	done, err := editGenerated(dir, func(name string, body []byte) []byte {
		if !p.funcs[name] {
			return body
		}
		return bytes.Replace(body, []byte("graphql.MarshalSliceConcurrently("), []byte("marshalSliceSequentially("), 1)
	})
	if err == nil && done != len(p.funcs) {
		err = fmt.Errorf("rewrote %d of %d list marshallers: gqlgen's generated code changed shape", done, len(p.funcs))
	}
	return err
}

// editGenerated applies edit to the body of every executionContext method
// of the generated files in dir, writes the files it changed and returns
// how many bodies it changed.
func editGenerated(dir string, edit func(name string, body []byte) []byte) (int, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.generated.go"))
	if err != nil {
		return 0, err
	}
	sort.Strings(files)
	done := 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			return done, err
		}
		out, n := rewriteFuncs(src, edit)
		if n == 0 {
			continue
		}
		done += n
		if err := os.WriteFile(f, out, 0o644); err != nil {
			return done, err
		}
	}
	return done, nil
}

// rewriteFuncs applies edit to the body of every executionContext method in
// src; it returns the result and how many bodies edit changed.
func rewriteFuncs(src []byte, edit func(name string, body []byte) []byte) ([]byte, int) {
	locs := funcDecl.FindAllSubmatchIndex(src, -1)
	var out bytes.Buffer
	n, last := 0, 0
	for i, loc := range locs {
		end := len(src)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		body := src[loc[0]:end]
		repl := edit(string(src[loc[2]:loc[3]]), body)
		if bytes.Equal(repl, body) {
			continue
		}
		out.Write(src[last:loc[0]])
		out.Write(repl)
		last = end
		n++
	}
	out.Write(src[last:])
	return out.Bytes(), n
}
