package generated

import (
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
