package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ruleFree are the areas whose rules storage never runs: storage loads
// and saves for their services, which decide. Of such an area, storage's
// non-test code may name the types and the vocabulary (constants whose
// value is a string literal) only: no function, and no other constant or
// variable (a schedule, a window, a burst: rules too).
var ruleFree = []string{"domain/webhooks", "domain/clients"}

// TestStorageRunsNoAreaRules fails when storage calls into, or reads the
// tunings of, an area in ruleFree (docs/architecture.md, "One write
// shape").
func TestStorageRunsNoAreaRules(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("../storage/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, area := range ruleFree {
		allowed := vocabulary(t, "../"+area)
		checked := 0
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			name := importName(file, module+"/"+area)
			if name == "" {
				continue
			}
			checked++
			ast.Inspect(file, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == name && !allowed[sel.Sel.Name] {
					t.Errorf("%s uses %s.%s: storage names an area's types and vocabulary only, its service decides",
						filepath.Base(f), area, sel.Sel.Name)
				}
				return true
			})
		}
		if checked == 0 {
			t.Errorf("no storage file imports %s: the check checks nothing", area)
		}
	}
}

// vocabulary is what storage may name of the package in dir: its types
// and its constants whose value is a string literal.
func vocabulary(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(dir + "/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %v", dir, err)
	}
	out := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range g.Specs {
				switch s := spec.(type) {
				case *ast.TypeSpec:
					out[s.Name.Name] = true
				case *ast.ValueSpec:
					if g.Tok != token.CONST || len(s.Values) != len(s.Names) {
						continue
					}
					for i, v := range s.Values {
						if lit, ok := v.(*ast.BasicLit); ok && lit.Kind == token.STRING {
							out[s.Names[i].Name] = true
						}
					}
				}
			}
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s declares no type: the parse read nothing", dir)
	}
	return out
}

// importName is the name file imports path as, "" when it does not.
func importName(file *ast.File, path string) string {
	for _, imp := range file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
}
