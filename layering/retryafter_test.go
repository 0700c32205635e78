package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestRetryAfterOnlyAtTheEdge: a refusal's Retry-After (and with it the
// 503 of an unavailable database or limiter) is set by httpedge alone; the
// transports ask it and write their own bodies.
func TestRetryAfterOnlyAtTheEdge(t *testing.T) {
	t.Parallel()
	atEdge := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != ".." && (strings.HasPrefix(n, ".") || n == "node_modules" || n == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		file, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		edge := filepath.Dir(path) == filepath.Join("..", "httpedge")
		ast.Inspect(file, func(n ast.Node) bool {
			if !setsRetryAfter(n) {
				return true
			}
			if edge {
				atEdge++
			} else {
				t.Errorf("%s sets Retry-After: ask httpedge (RetryAfter, Unavailable)", path)
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if atEdge == 0 {
		t.Error("httpedge sets no Retry-After: the check checks nothing")
	}
}

// setsRetryAfter: n is h.Set("Retry-After", …), h.Add(…) or
// h["Retry-After"] = ….
func setsRetryAfter(n ast.Node) bool {
	isName := func(e ast.Expr) bool {
		lit, ok := e.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return false
		}
		s, _ := strconv.Unquote(lit.Value)
		return http.CanonicalHeaderKey(s) == "Retry-After"
	}
	switch n := n.(type) {
	case *ast.CallExpr:
		sel, ok := n.Fun.(*ast.SelectorExpr)
		return ok && (sel.Sel.Name == "Set" || sel.Sel.Name == "Add") && len(n.Args) == 2 && isName(n.Args[0])
	case *ast.AssignStmt:
		for _, l := range n.Lhs {
			if ix, ok := l.(*ast.IndexExpr); ok && isName(ix.Index) {
				return true
			}
		}
	}
	return false
}
