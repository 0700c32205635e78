package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// goNames is what the module declares, by package name (packages that share
// a name share an entry): its top-level names, and each type's methods and
// fields.
type goNames struct {
	top     map[string]map[string]bool            // package → names
	members map[string]map[string]map[string]bool // package → type → methods and fields
}

// declared parses every .go file under root (tests too: a doc may cite a
// test helper) without type-checking.
func declared(t *testing.T, root string) goNames {
	t.Helper()
	n := goNames{top: map[string]map[string]bool{}, members: map[string]map[string]map[string]bool{}}
	member := func(pkg, typ, name string) {
		if n.members[pkg] == nil {
			n.members[pkg] = map[string]map[string]bool{}
		}
		if n.members[pkg][typ] == nil {
			n.members[pkg][typ] = map[string]bool{}
		}
		n.members[pkg][typ][name] = true
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkg := strings.TrimSuffix(f.Name.Name, "_test")
		if pkg == "main" {
			return nil
		}
		if n.top[pkg] == nil {
			n.top[pkg] = map[string]bool{}
		}
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil {
					n.top[pkg][decl.Name.Name] = true
				} else if typ := recvType(decl.Recv.List[0].Type); typ != "" {
					member(pkg, typ, decl.Name.Name)
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						n.top[pkg][spec.Name.Name] = true
						for _, m := range typeMembers(spec.Type) {
							member(pkg, spec.Name.Name, m)
						}
					case *ast.ValueSpec:
						for _, id := range spec.Names {
							n.top[pkg][id.Name] = true
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// recvType is the name of a method's receiver type (T, *T, T[K], *T[K]).
func recvType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// typeMembers are a struct's fields (an embedded field by its type's name)
// or an interface's methods.
func typeMembers(e ast.Expr) []string {
	var out []string
	var fields *ast.FieldList
	switch x := e.(type) {
	case *ast.StructType:
		fields = x.Fields
	case *ast.InterfaceType:
		fields = x.Methods
	default:
		return nil
	}
	for _, f := range fields.List {
		for _, id := range f.Names {
			out = append(out, id.Name)
		}
		if len(f.Names) == 0 {
			if name := recvType(f.Type); name != "" {
				out = append(out, name)
			} else if sel, ok := f.Type.(*ast.SelectorExpr); ok {
				out = append(out, sel.Sel.Name)
			}
		}
	}
	return out
}

var (
	fence    = regexp.MustCompile("(?ms)^ {0,3}```.*?^ {0,3}```")
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// qualified is pkg.Name, pkg.Name.Member or pkg.Prefix* (every name
	// so prefixed): a lower-case package name, an exported name.
	qualified = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Z]\w*\*?)(?:\.([A-Z]\w*))?`)
)

// cited are the package-qualified names in the inline code spans of a
// Markdown text (fenced blocks are programs, not citations).
func cited(md string) [][3]string {
	var out [][3]string
	md = fence.ReplaceAllString(md, "")
	for _, span := range codeSpan.FindAllStringSubmatch(md, -1) {
		for _, m := range qualified.FindAllStringSubmatch(span[1], -1) {
			out = append(out, [3]string{m[1], m[2], m[3]})
		}
	}
	return out
}

// missing is the reason a cited name does not exist, or "".
func (n goNames) missing(c [3]string) string {
	pkg, name, sub := c[0], c[1], c[2]
	names, ours := n.top[pkg]
	if !ours {
		return "" // not one of the module's packages (http.Handler, bun.Tx)
	}
	if prefix, ok := strings.CutSuffix(name, "*"); ok {
		for n := range names {
			if strings.HasPrefix(n, prefix) {
				return ""
			}
		}
		return "no " + pkg + "." + name
	}
	if !names[name] {
		return "no " + pkg + "." + name
	}
	if sub != "" {
		if members, isType := n.members[pkg][name]; isType && !members[sub] {
			return pkg + "." + name + " has no " + sub
		}
	}
	return ""
}

// TestDocsCiteNamesThatExist fails when README.md or a guide under docs/
// cites, in backticks, a package-qualified Go name (`storage.Tx`,
// `loads.Writes.UpdateLoad`) of one of the module's packages that the code
// does not declare: a name that moved or was renamed leaves the docs with it.
func TestDocsCiteNamesThatExist(t *testing.T) {
	t.Parallel()
	n := declared(t, "..")
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	docs = append(docs, "../README.md")
	checked := 0
	for _, doc := range docs {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		var bad []string
		for _, c := range cited(string(b)) {
			if _, ours := n.top[c[0]]; ours {
				checked++
			}
			if why := n.missing(c); why != "" && !seen[why] {
				seen[why] = true
				bad = append(bad, why)
			}
		}
		sort.Strings(bad)
		for _, why := range bad {
			t.Errorf("%s cites a name the code does not declare: %s", strings.TrimPrefix(doc, "../"), why)
		}
	}
	if checked < 50 {
		t.Fatalf("checked %d citations: the docs or the parser moved", checked)
	}
}

func TestCited(t *testing.T) {
	t.Parallel()
	md := "The write (`loads.Writes.UpdateLoad`, `storage.Tx`) and `app.tenant_id`, `loads.Max*`.\n\n```go\nx := domain.Gone\n```\n"
	got := cited(md)
	want := [][3]string{{"loads", "Writes", "UpdateLoad"}, {"storage", "Tx", ""}, {"loads", "Max*", ""}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("cited: %v, want %v", got, want)
	}
	n := goNames{
		top:     map[string]map[string]bool{"loads": {"Writes": true}},
		members: map[string]map[string]map[string]bool{"loads": {"Writes": {"CreateLoad": true}}},
	}
	if why := n.missing([3]string{"loads", "Writes", "UpdateLoad"}); why == "" {
		t.Error("a missing method passed")
	}
	if why := n.missing([3]string{"loads", "Gone", ""}); why == "" {
		t.Error("a missing name passed")
	}
	if why := n.missing([3]string{"loads", "Wr*", ""}); why != "" {
		t.Errorf("a prefix that names something failed: %s", why)
	}
	if why := n.missing([3]string{"loads", "Max*", ""}); why == "" {
		t.Error("a prefix that names nothing passed")
	}
	if why := n.missing([3]string{"http", "Handler", ""}); why != "" {
		t.Errorf("another module's name failed: %s", why)
	}
}

// operatorDocs are the guides for operators and contributors; every other
// guide, and README.md, is for integrators.
var operatorDocs = map[string]bool{
	"architecture.md": true, "capacity.md": true, "deploy.md": true, "failover.md": true,
	"operating.md": true, "performance.md": true, "pooler.md": true, "replicas.md": true,
	"security.md": true, "testing.md": true, "tracing.md": true,
}

// integratorPackages are the module's packages an integrator imports: the
// Go SDK and the receivers' signature verifier.
var integratorPackages = map[string]bool{"haulgraph": true, "webhooksig": true}

// TestIntegratorGuidesCiteNoInternals fails when README.md or a guide for
// integrators cites a Go name of the server's own packages (`storage.Tx`,
// `app.Config.X`): an integrator cannot see or use them.
func TestIntegratorGuidesCiteNoInternals(t *testing.T) {
	t.Parallel()
	n := declared(t, "..")
	docs, err := filepath.Glob("../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range append(docs, "../README.md") {
		if operatorDocs[filepath.Base(doc)] && doc != "../README.md" {
			continue
		}
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for _, c := range cited(string(b)) {
			name := c[0] + "." + c[1]
			if _, ours := n.top[c[0]]; ours && !integratorPackages[c[0]] && !seen[name] {
				seen[name] = true
				t.Errorf("%s, a guide for integrators, cites the internal name %s", strings.TrimPrefix(doc, "../"), name)
			}
		}
	}
}
