package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/haulgraph/haulgraph/domain/reads"
)

// statementSkip reads a settlementStatements field's selection set (through
// fragments, honouring @skip/@include): the count and the relations that the
// query does not select are not read at all.
func statementSkip(ctx context.Context) reads.StatementSkip {
	op := graphql.GetOperationContext(ctx)
	skip := reads.StatementSkip{Total: true, Totals: true, Driver: true, LineItems: true, SubLines: true}
	for _, f := range graphql.CollectFieldsCtx(ctx, nil) {
		switch f.Name {
		case "total", "totalCount":
			skip.Total = false
		case "items":
			selectStatement(op, f.Selections, &skip)
		case "edges":
			for _, e := range graphql.CollectFields(op, f.Selections, nil) {
				if e.Name == "node" {
					selectStatement(op, e.Selections, &skip)
				}
			}
		}
	}
	return skip
}

func selectStatement(op *graphql.OperationContext, sel ast.SelectionSet, skip *reads.StatementSkip) {
	for _, f := range graphql.CollectFields(op, sel, nil) {
		switch f.Name {
		case "totals":
			skip.Totals = false
		case "driver":
			skip.Driver = false
		case "lineItems":
			skip.LineItems = false
			for _, l := range graphql.CollectFields(op, f.Selections, nil) {
				if l.Name == "subLines" {
					skip.SubLines = false
				}
			}
		}
	}
}
