package execrt

import (
	"context"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2"
	"github.com/vektah/gqlparser/v2/ast"
)

const statementsSDL = `
type Query { settlementStatements: [SettlementStatement!]! }
type SettlementStatement { number: String! driver: Driver! }
type Driver { name: String! type: String! documents: [Document!]! }
type Document { id: ID! }
`

// statementFields is the table gqlgenrun writes for statementsSDL: the
// driver's documents have a resolver.
var statementFields = ResolverFields{
	"Query": {"settlementStatements": true}, "SettlementStatement": {},
	"Driver": {"documents": true}, "Document": {},
}

// TestSelectsResolver: a list of statements is marshalled in order unless
// its selection reaches a resolver field (the driver's documents), however
// the selection reaches it — directly, through an inline fragment or a named
// one; what the walk cannot judge counts as reaching one.
func TestSelectsResolver(t *testing.T) {
	t.Parallel()
	schema := gqlparser.MustLoadSchema(&ast.Source{Name: "s.graphqls", Input: statementsSDL})
	items := func(t *testing.T, query string) ast.SelectionSet {
		t.Helper()
		doc, errs := gqlparser.LoadQuery(schema, query)
		if errs != nil {
			t.Fatal(errs)
		}
		return doc.Operations[0].SelectionSet[0].(*ast.Field).SelectionSet
	}
	const prefix = `{ settlementStatements `
	for _, c := range []struct {
		name, sel string
		want      bool
	}{
		{"dashboard", `{ number driver { name type } }`, false},
		{"documents", `{ number driver { name documents { id } } }`, true},
		{"inline fragment", `{ number ... on SettlementStatement { driver { documents { id } } } }`, true},
		{"inline fragment without", `{ ... on SettlementStatement { driver { name } } }`, false},
		{"named fragment", `{ ...S } } fragment S on SettlementStatement { driver { documents { id } } } #`, true},
		{"typename only", `{ __typename }`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := statementFields.SelectsResolver(items(t, prefix+c.sel+" }"), "SettlementStatement"); got != c.want {
				t.Errorf("SelectsResolver = %v, want %v", got, c.want)
			}
		})
	}
	if !statementFields.SelectsResolver(ast.SelectionSet{&ast.Field{Name: "x"}}, "NoSuchType") {
		t.Error("a type outside the table counts as not reaching a resolver")
	}
}

// TestMarshalSliceSequentially: every element sees its index in its field
// context (the error path), in order, in the calling goroutine; a panicking
// element becomes an error on the response and the list null, as gqlgen's
// concurrent marshalling does.
func TestMarshalSliceSequentially(t *testing.T) {
	t.Parallel()
	ctx := graphql.WithResponseContext(context.Background(), graphql.DefaultErrorPresenter, graphql.DefaultRecover)
	ctx = graphql.WithFieldContext(ctx, &graphql.FieldContext{Field: graphql.CollectedField{Field: &ast.Field{Alias: "items"}}})
	var seen []int
	ret := MarshalSliceSequentially(ctx, 3, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		seen = append(seen, *graphql.GetFieldContext(ctx).Index)
		return graphql.MarshalInt(i)
	})
	if len(ret) != 3 || len(seen) != 3 || seen[0] != 0 || seen[1] != 1 || seen[2] != 2 {
		t.Fatalf("marshalled %d elements, indexes %v", len(ret), seen)
	}
	ret = MarshalSliceSequentially(ctx, 3, 0, false, func(ctx context.Context, i int) graphql.Marshaler {
		if i == 1 {
			panic("element 1")
		}
		return graphql.MarshalInt(i)
	})
	if ret != nil {
		t.Errorf("a panicking element left the list %v", ret)
	}
	errs := graphql.GetErrors(ctx)
	if len(errs) != 1 || errs[0].Path.String() != "items[1]" {
		t.Errorf("errors %v, want one at items[1]", errs)
	}
}

// TestResponseBufferSizedByLastResponse: a query's buffer starts at the
// size its operation text last needed (plus an eighth), never above 1 MiB.
func TestResponseBufferSizedByLastResponse(t *testing.T) {
	t.Parallel()
	const q = "query TestResponseBufferSizedByLastResponse { a }"
	ResponseSizeOf(q).Remember(80_000)
	if c := ResponseSizeOf(q).Buffer().Cap(); c < 80_000 || c > 100_000 {
		t.Errorf("buffer of %d bytes after an 80,000-byte response", c)
	}
	ResponseSizeOf(q).Remember(50 << 20)
	if c := ResponseSizeOf(q).Buffer().Cap(); c > 1<<20 {
		t.Errorf("buffer of %d bytes: the hint is not bounded", c)
	}
}
