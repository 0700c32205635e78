package storage_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Storage describes rows one way and numbers bind parameters one way: a
// struct field's tag is pgx's `db:"column"` (pgx.RowToStructByName reads
// it) and nothing else, a row of more than three columns is read by name, a statement's parameters are $1, $2, ... (pgx's own,
// built by params.bind where a text is assembled), never bun's ?; and bun is
// imported only by db.go, for the test fixtures' InTenant and InSystem.
func TestOneRowDialectAndPlaceholderStyle(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); strings.HasPrefix(p, "github.com/uptrace/bun") && name != "db.go" {
				t.Errorf("%s imports %s: storage's rows are pgx's (db.go keeps bun for the fixtures)", name, p)
			}
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv != nil && (fn.Name.Name == "InTenant" || fn.Name.Name == "InSystem") {
				continue // the fixtures' bun transactions: bun's dialect
			}
			fn, _ := d.(*ast.FuncDecl)
			ast.Inspect(d, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.Field:
					if n.Tag != nil {
						checkTag(t, fset.Position(n.Pos()), n.Tag.Value)
					}
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Scan" && len(n.Args) > 3 &&
						(fn == nil || !positional[name+":"+fn.Name.Name]) {
						t.Errorf("%s: Scan of %d targets by position: read a row of more than three columns by name (pgx.RowToStructByName)",
							fset.Position(n.Pos()), len(n.Args))
					}
				case *ast.BasicLit:
					if n.Kind == token.STRING && strings.Contains(n.Value, "?") {
						t.Errorf("%s: %s: a ? placeholder; storage's statements number their parameters $1, $2, ...", fset.Position(n.Pos()), n.Value)
					}
				}
				return true
			})
		}
	}
	if checked < 20 {
		t.Fatalf("checked %d files", checked)
	}
}

// positional are the functions that read rows of more than three columns
// by position because the hot path measurably needs it (the figure stands
// in their comment).
var positional = map[string]bool{
	"reads_statements.go:fillStatements":      true,
	"export_statements.go:readStatementBatch": true,
	"export_statements.go:exportLines":        true,
}

// checkTag fails a struct tag with any key but db.
func checkTag(t *testing.T, pos token.Position, lit string) {
	t.Helper()
	raw, err := strconv.Unquote(lit)
	if err != nil {
		t.Errorf("%s: tag %s: %v", pos, lit, err)
		return
	}
	tag := reflect.StructTag(raw)
	for _, part := range strings.Fields(raw) {
		key, _, _ := strings.Cut(part, ":")
		if key != "db" {
			t.Errorf("%s: tag key %q (%s): storage describes rows with db tags only", pos, key, raw)
		}
	}
	if col, ok := tag.Lookup("db"); ok && (col == "" || strings.Contains(col, ",")) {
		t.Errorf("%s: db tag %q: a column name, no options", pos, col)
	}
}
