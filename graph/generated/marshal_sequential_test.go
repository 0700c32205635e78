package generated

import (
	"os"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

// TestSelectsResolver: a list of statements is marshalled in order unless
// its selection reaches a resolver field (the driver's documents), however
// the selection reaches it — directly, through an inline fragment or a named
// one; what the walk cannot judge counts as reaching one.
func TestSelectsResolver(t *testing.T) {
	t.Parallel()
	schema := NewExecutableSchema(Config{}).Schema()
	items := func(t *testing.T, query string) ast.SelectionSet {
		t.Helper()
		doc, errs := gqlparser.LoadQuery(schema, query)
		if errs != nil {
			t.Fatal(errs)
		}
		conn := doc.Operations[0].SelectionSet[0].(*ast.Field)
		return conn.SelectionSet[0].(*ast.Field).SelectionSet
	}
	const prefix = `{ settlementStatements(filter: {}) { items `
	for _, c := range []struct {
		name, sel string
		want      bool
	}{
		{"dashboard", `{ number driver { name type } totals { grossIncome { amount } } lineItems { title subLines { amount { amount } } } }`, false},
		{"documents", `{ number driver { name documents { id } } }`, true},
		{"inline fragment", `{ number ... on SettlementStatement { driver { documents { id } } } }`, true},
		{"inline fragment without", `{ ... on SettlementStatement { driver { name } } }`, false},
		{"named fragment", `{ ...S } } } fragment S on SettlementStatement { driver { documents { id } } } #`, true},
		{"typename only", `{ __typename }`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := selectsResolver(items(t, prefix+c.sel+" } }"), "SettlementStatement"); got != c.want {
				t.Errorf("selectsResolver = %v, want %v", got, c.want)
			}
		})
	}
	if !selectsResolver(ast.SelectionSet{&ast.Field{Name: "x"}}, "NoSuchType") {
		t.Error("a type outside the table counts as not reaching a resolver")
	}
}

// TestResponseBufferSizedByLastResponse: a query's buffer starts at the
// size its operation text last needed (plus an eighth), never above 1 MiB,
// and the generated Exec uses it.
func TestResponseBufferSizedByLastResponse(t *testing.T) {
	t.Parallel()
	const q = "query TestResponseBufferSizedByLastResponse { a }"
	responseSizeOf(q).remember(80_000)
	if c := responseSizeOf(q).buffer().Cap(); c < 80_000 || c > 100_000 {
		t.Errorf("buffer of %d bytes after an 80,000-byte response", c)
	}
	responseSizeOf(q).remember(50 << 20)
	if c := responseSizeOf(q).buffer().Cap(); c > 1<<20 {
		t.Errorf("buffer of %d bytes: the hint is not bounded", c)
	}
	src, err := os.ReadFile("root_.generated.go")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(src), "buf := size.buffer()") {
		t.Error("the generated Exec does not size its query buffer (go generate did not run gqlgenrun)")
	}
}
