package graph_test

import (
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/readstest"
)

// settlementStatements reads the relations a query selects and no others:
// with nothing but scalars selected the whole field is one round trip (tenant
// context and page together); selecting driver, totals or line items adds the
// one round trip that fetches all of them for the page. Counted on the wire
// for the caller; the fewest of several requests leave out rate-limit leases.
func TestStatementRelationsOnlyWhenSelected(t *testing.T) {
	t.Parallel()
	rt := &storage.RoundTrips{}
	frozen := time.Now()
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.DBRoundTrips = rt
		c.RateLimitClock = func() time.Time { return frozen } // one rate-limit lease for the whole test
		c.GraphQLCostBudget, c.GraphQLCostRefill = 1e9, 1e9   // and one cost-budget lease
	}})
	ta := apptest.NewTenant(t, srv, "acme")
	readstest.Seed(t, srv.DB, ta.ID, ta.SubsidiaryID, ta.Slug, 30)
	tok := srv.Token(t, ta, domain.ScopeDriverRead)
	const list = `settlementStatements(filter: {statementDateRange: {start: "2025-03-01T00:00:00Z", end: "2025-03-30T00:00:00Z"}}, page: 0, pageSize: 100)`

	fewest := func(query string, check func(gqlResponse)) int64 {
		t.Helper()
		best := int64(-1)
		for i := range 6 {
			before := rt.Callers()
			out := gql(t, srv.URL, tok, query, nil)
			n := rt.Callers() - before
			if len(out.Errors) > 0 {
				t.Fatalf("%s: %+v", query, out.Errors)
			}
			if i == 0 {
				check(out)
				continue // the first use of a connection prepares its statements
			}
			if best < 0 || n < best {
				best = n
			}
		}
		return best
	}
	type stmt struct {
		Number int
		Driver *struct{ Name string }
		Totals *struct {
			GrossIncome *struct{ Amount float64 }
		}
		LineItems []struct {
			Title    string
			SubLines []struct{ Description string }
		}
	}
	items := func(out gqlResponse) []stmt {
		var c struct{ Items []stmt }
		out.Field(t, "settlementStatements", &c)
		if len(c.Items) == 0 {
			t.Fatal("no statements")
		}
		return c.Items
	}

	if n := fewest(`{ `+list+` { items { number } } }`, func(out gqlResponse) { items(out) }); n != 1 {
		t.Errorf("scalars only: %d round trips, want 1 (no relation read)", n)
	}
	if n := fewest(`{ `+list+` { total items { number driver { name } } } }`, func(out gqlResponse) {
		if s := items(out)[0]; s.Driver == nil || s.Driver.Name == "" {
			t.Errorf("driver not read when selected: %+v", s)
		}
	}); n != 2 {
		t.Errorf("with driver: %d round trips, want 2", n)
	}
	dashboard := `{ ` + list + ` { items { number status statementDate driver { name type }
		totals { grossIncome { amount currency } netIncome { amount currency } deductions { amount } loadedMiles }
		lineItems { category title amount { amount currency } subLines { description quantity rate amount { amount currency } } } } } }`
	if n := fewest(dashboard, func(out gqlResponse) {
		var lines, subs int
		for _, s := range items(out) {
			lines += len(s.LineItems)
			for _, l := range s.LineItems {
				subs += len(l.SubLines)
			}
		}
		if lines == 0 || subs == 0 {
			t.Errorf("dashboard query: %d line items, %d sub-lines; want both read", lines, subs)
		}
	}); n != 2 {
		t.Errorf("dashboard query: %d round trips, want 2", n)
	}
}
