package graph_test

import (
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/graph/generated"
)

// queryOps maps each root query field to its operation (each area's
// operation table; docs/architecture.md, "Scopes").
var queryOps = map[string]domain.Operation{
	"invoice":              reads.OpReadInvoice,
	"settlementStatements": reads.OpSearchStatements,
	"settlementStatement":  reads.OpReadStatement,
	"trailers":             reads.OpListTrailers,
	"locations":            reads.OpSearchLocations,
	"users":                reads.OpSearchUsers,
	"load":                 reads.OpReadLoad,
	"loads":                reads.OpReadLoad,
	"eventTypes":           webhooks.OpListEventTypes,
	"webhooks":             webhooks.OpManageWebhooks,
	"webhook":              webhooks.OpManageWebhooks,
	"eventDestinations":    webhooks.OpManageWebhooks,
	"eventDestination":     webhooks.OpManageWebhooks,
	"events":               eventlog.OpListEvents,
}

func TestScopeDirectivesMatchDomain(t *testing.T) {
	t.Parallel()
	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	for _, f := range schema.Query.Fields {
		if f.Name[0] == '_' {
			continue
		}
		op, ok := queryOps[f.Name]
		if !ok {
			t.Errorf("query field %s has no operation in this test's table", f.Name)
			continue
		}
		got := ""
		if d := f.Directives.ForName("hasScope"); d != nil {
			got = d.Arguments.ForName("scope").Value.Raw
		}
		if want := string(op.Scope); got != want {
			t.Errorf("Query.%s: @hasScope %q, domain requires %q", f.Name, got, want)
		}
	}
	for _, typ := range schema.Types {
		for _, f := range typ.Fields {
			if d := f.Directives.ForName("hasScope"); d != nil {
				if s := domain.Scope(d.Arguments.ForName("scope").Value.Raw); !domain.KnownScope(s) {
					t.Errorf("%s.%s: @hasScope(%q) is not in the scope catalogue", typ.Name, f.Name, s)
				}
			}
		}
	}
}
