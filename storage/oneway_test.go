package storage_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// Storage reaches PostgreSQL one way: a Tx (inTenantTx, readTenant,
// inTenantSnapshot, inSystemTx, inSystemPipeline). Its code calls neither
// bun's transactions (InTenant and InSystem are left to test fixtures and
// benches) nor bun's query builders, and takes the pool only where a Tx or
// a connection of its own (LISTEN, migrations) starts.
func TestOneWayToTheDatabase(t *testing.T) {
	t.Parallel()
	poolAllowed := map[string]bool{"db.go": true, "tenant_tx.go": true, "outbox_listen.go": true, "migrate.go": true}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && (fn.Name.Name == "InTenant" || fn.Name.Name == "InSystem") {
				continue // the fixtures' bun transactions themselves
			}
			inspect(t, fset, name, d, poolAllowed)
		}
	}
}

func inspect(t *testing.T, fset *token.FileSet, name string, d ast.Decl, poolAllowed map[string]bool) {
	t.Helper()
	ast.Inspect(d, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		switch sel.Sel.Name {
		case "InTenant", "InSystem", "RunInTx", "NewSelect", "NewInsert", "NewUpdate", "NewDelete", "NewRaw", "ExecContext", "QueryContext", "QueryRowContext":
			t.Errorf("%s: %s: the Tx idiom is storage's one way to the database", fset.Position(sel.Pos()), sel.Sel.Name)
		case "Pool":
			if !poolAllowed[name] {
				t.Errorf("%s: the pool is taken only where a Tx starts (tenant_tx.go)", fset.Position(sel.Pos()))
			}
		}
		return true
	})
}
