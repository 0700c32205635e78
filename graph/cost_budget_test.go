package graph_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/graph/generated"
	"github.com/haulgraph/haulgraph/graph/operation"
	"github.com/haulgraph/haulgraph/ratelimit"
	"github.com/haulgraph/haulgraph/storage/readstest"
)

// aliased repeats field under n aliases in one operation.
func aliased(n int, field string) string {
	var b strings.Builder
	b.WriteString("{ ")
	for i := range n {
		fmt.Fprintf(&b, "a%d: %s ", i, field)
	}
	b.WriteString("}")
	return b.String()
}

// Many aliases, or many introspection roots, are refused with
// COMPLEXITY_LIMIT_EXCEEDED before anything runs (no data at all); at the
// limit they run. Introspection is priced like any other field.
func TestAliasesAndIntrospectionRootsBounded(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 1)
	tok := w.token(t, "trailer:read")
	refused := func(name, q, msg string) {
		t.Helper()
		res, out := do(t, w.srv.URL, tok, "application/json", map[string]any{"query": q})
		if res.StatusCode != 200 || out.Code(0) != "COMPLEXITY_LIMIT_EXCEEDED" || out.Data != nil || !strings.Contains(out.Errors[0].Message, msg) {
			t.Errorf("%s: %d %+v, want COMPLEXITY_LIMIT_EXCEEDED and no data", name, res.StatusCode, out)
		}
	}
	refused("201 aliases", aliased(operation.MaxAliases+1, "__typename"), "aliases")
	// Aliases hidden in a fragment count each time it is spread.
	frag := strings.TrimSuffix(strings.TrimPrefix(aliased(101, "__typename"), "{"), "}")
	refused("2×101 aliases through a fragment", `{ ...F x: trailers(first: 1) { items { ...G } } } fragment F on Query { `+frag+` } fragment G on Trailer { `+strings.ReplaceAll(frag, "__typename", "trailerNum")+` }`, "aliases")
	refused("6 aliased __schema", aliased(operation.MaxIntrospectionRoots+1, "__schema { queryType { name } }"), "__schema or __type 6 times")
	refused("6 __type roots", `{ a: __type(name: "Trailer") { name } b: __type(name: "Load") { name } c: __type(name: "User") { name }
		d: __type(name: "Invoice") { name } e: __type(name: "Trip") { name } f: __type(name: "Stop") { name } }`, "6 times")

	out := gql(t, w.srv.URL, tok, aliased(operation.MaxAliases, "__typename"), nil)
	if len(out.Errors) > 0 || len(out.Data) != operation.MaxAliases {
		t.Errorf("200 aliases: %+v", out.Errors)
	}
	out = gql(t, w.srv.URL, tok, aliased(operation.MaxIntrospectionRoots, "__schema { types { name } }"), nil)
	var cost costJSON
	_ = json.Unmarshal(out.Extensions["cost"], &cost)
	if len(out.Errors) > 0 || len(out.Data) != operation.MaxIntrospectionRoots {
		t.Fatalf("5 introspection roots: %+v", out.Errors)
	}
	// Each root: __schema (1) + types (5 × 1) = 6; actual counts every type returned.
	if cost.Requested != 5*6 || cost.Actual < 5*50 {
		t.Errorf("introspection cost %+v, want requested 30 and every returned type counted", cost)
	}
}

// Two instances on one database spend one budget per client: what one
// instance charged is not available on the other.
func TestInstancesShareTheCostBudget(t *testing.T) {
	t.Parallel()
	frozen := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	configure := func(c *app.Config) {
		c.GraphQLCostBudget, c.GraphQLCostRefill = 100, 1
		c.RateLimitClock = func() time.Time { return frozen } // no refill during the test
	}
	a := apptest.Start(t, apptest.Options{Configure: configure})
	b := apptest.Start(t, apptest.Options{DatabaseURL: a.Config.DatabaseURL, Configure: func(c *app.Config) {
		configure(c)
		c.PublicURL = a.URL
	}})
	tenant := apptest.NewTenant(t, a, "acme")
	tok := a.Token(t, tenant, domain.ScopeTrailerRead)
	q := `{ trailers(first: 58) { items { trailerNum } } }` // requested 59, actual 1 (no trailers)

	res, out := do(t, a.URL, tok, "application/json", map[string]any{"query": q})
	var cost costJSON
	_ = json.Unmarshal(out.Extensions["cost"], &cost)
	if res.StatusCode != 200 || len(out.Errors) > 0 || cost.Requested != 59 || cost.Actual != 1 || cost.Throttle.Max != 100 || cost.Throttle.Available != 99 {
		t.Fatalf("first query on instance A: %d %+v %+v", res.StatusCode, out.Errors, cost)
	}
	// A keeps its refund in its lease; B finds 41 of 100 points in the shared
	// bucket, short of 59. Separate buckets would have let it run.
	res, out = do(t, b.URL, tok, "application/json", map[string]any{"query": q})
	if res.StatusCode != http.StatusTooManyRequests || out.Code(0) != "RATE_LIMITED" || out.Data != nil || res.Header.Get("Retry-After") == "" {
		t.Fatalf("instance B spent a budget instance A had taken: %d %+v", res.StatusCode, out)
	}
	// Another client of the tenant has its own budget.
	other := a.Token(t, tenant, domain.ScopeTrailerRead, domain.ScopeLoadRead)
	if res, out := do(t, b.URL, other, "application/json", map[string]any{"query": q}); res.StatusCode != 200 || len(out.Errors) > 0 {
		t.Fatalf("another client throttled by the first: %d %+v", res.StatusCode, out)
	}
}

// docs/graphql.md's dashboard query: a page of 100 statements with driver,
// totals, line items and sub-lines.
const dashboardQuery = `query($f: StatementFilter!) { settlementStatements(filter: $f, page: 0, pageSize: 100) { items {
	number status statementDate driver { name type }
	totals { grossIncome { amount currency } netIncome { amount currency } deductions { amount } loadedMiles }
	lineItems { category title amount { amount currency } subLines { description quantity rate amount { amount currency } } } } } }`

// everyField selects every field of def and of every type it reaches,
// walking the schema. A value (a type without an id: money, totals) is
// expanded wherever it is reached; an entity (with an id) once, and where
// it is reached again (a Relay edge's node) by its id; fields with a
// required argument are left out.
func everyField(s *ast.Schema, def *ast.Definition, seen map[string]bool) string {
	if def.Fields.ForName("id") != nil {
		seen[def.Name] = true
	}
	var b strings.Builder
	if def.IsAbstractType() {
		b.WriteString("__typename ")
		for _, p := range s.GetPossibleTypes(def) {
			fmt.Fprintf(&b, "... on %s { %s} ", p.Name, everyField(s, p, seen))
		}
		return b.String()
	}
	for _, f := range def.Fields {
		required := false
		for _, a := range f.Arguments {
			required = required || (a.Type.NonNull && a.DefaultValue == nil)
		}
		switch t := s.Types[f.Type.Name()]; {
		case strings.HasPrefix(f.Name, "__") || required:
		case t.IsLeafType():
			b.WriteString(f.Name + " ")
		case seen[t.Name]:
			b.WriteString(f.Name + " { id } ")
		default:
			fmt.Fprintf(&b, "%s { %s} ", f.Name, everyField(s, t, seen))
		}
	}
	return b.String()
}

// The dashboard's statement query at pageSize 100, with every field of
// every type it reaches (the statement, its driver and the driver's
// documents, totals, lines, sub-lines, the Relay edges), costs well under
// the single-query limit: money and totals come with their statement, the
// driver with it too, and only lists are priced. docs/graphql.md gives its
// cost and the documented query's. With the default budget a client
// sustains the documented query at 2 a second (the limiter's clock moves
// 500 ms per request; no sleeping), and pays at least as many of them a
// minute as it did when the query was priced 19,801 against a budget of
// 40,000 refilled at 15,000/s; the guide's other queries too.
func TestDashboardCostIsWork(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { c.RateLimitClock = clock }})
	tenant := apptest.NewTenant(t, srv, "acme")
	readstest.Seed(t, srv.DB, tenant.ID, tenant.SubsidiaryID, tenant.Slug, 130)
	vars := map[string]any{"f": dateRange("2025-01-01T00:00:00Z", "2025-12-31T00:00:00Z")}
	costOf := func(out gqlResponse) costJSON {
		t.Helper()
		var cost costJSON
		if err := json.Unmarshal(out.Extensions["cost"], &cost); err != nil {
			t.Fatalf("extensions.cost: %s", out.Extensions["cost"])
		}
		return cost
	}

	schema := generated.NewExecutableSchema(generated.Config{}).Schema()
	all := `query($f: StatementFilter!) { settlementStatements(filter: $f, page: 0, pageSize: 100) { ` +
		everyField(schema, schema.Types["SettlementStatementConnection"], map[string]bool{}) + `} }`
	if !strings.Contains(all, "escrow { amount currency } fuel { amount currency }") || !strings.Contains(all, "documents { id") {
		t.Fatalf("the walk missed fields: %s", all)
	}
	out := gql(t, srv.URL, srv.Token(t, tenant, domain.ScopeDriverRead), all, vars)
	var page struct{ Items []json.RawMessage }
	_ = json.Unmarshal(out.Data["settlementStatements"], &page)
	cost := costOf(out)
	// The page 1; per statement: itself, its edge, its driver's documents
	// (50), its lines (24) each with its sub-lines (3).
	want := 1 + 100*(1+1+documents.MaxPerParent+reads.MaxStatementLineItems*(1+reads.MaxStatementSubLines))
	if len(out.Errors) > 0 || len(page.Items) != 100 || cost.Requested != want || cost.Actual > cost.Requested || cost.Actual <= 200 {
		t.Fatalf("every field of 100 statements: %d items, %+v, cost %+v; want requested %d (docs/graphql.md)", len(page.Items), out.Errors, cost, want)
	}
	t.Logf("every field of 100 statements: requested %d, actual %d", cost.Requested, cost.Actual)
	if cost.Requested > operation.DefaultCostLimit*3/4 {
		t.Errorf("every field of 100 statements costs %d of the limit's %d", cost.Requested, operation.DefaultCostLimit)
	}

	tok := srv.Token(t, tenant, domain.ScopeDriverRead)
	for i := range 30 {
		res, out := do(t, srv.URL, tok, "application/json", map[string]any{"query": dashboardQuery, "variables": vars})
		cost := costOf(out)
		if res.StatusCode != 200 || len(out.Errors) > 0 {
			t.Fatalf("request %d at 2/s: %d %+v (cost %+v)", i, res.StatusCode, out.Errors, cost)
		}
		if i == 0 {
			t.Logf("the dashboard query: requested %d, actual %d", cost.Requested, cost.Actual)
		}
		if cost.Requested != 9701 || cost.Actual < 200 {
			t.Fatalf("the dashboard query is priced %+v, docs/graphql.md says 9701", cost)
		}
		mu.Lock()
		now = now.Add(500 * time.Millisecond)
		mu.Unlock()
	}

	// Runs a minute with nothing refunded (every list full), from a full
	// bucket, as fast as the budget allows: 48 now, 47 before.
	runs, before := runsAMinute(operation.DefaultCostBudget, operation.DefaultCostRefill, 9701), runsAMinute(40000, 15000, 19801)
	t.Logf("the dashboard query, never refunded: %d runs a minute, %d before", runs, before)
	if runs < before {
		t.Errorf("the dashboard runs %d times a minute, %d before", runs, before)
	}
	// The guide's three smaller queries (priced 13, 46 and 322 before, 3,
	// 21 and 321 now) run as often as a client may send requests, as before.
	for _, q := range []struct{ before, now int }{{13, 3}, {46, 21}, {322, 321}} {
		if runs, before := runsAMinute(operation.DefaultCostBudget, operation.DefaultCostRefill, q.now), runsAMinute(40000, 15000, q.before); runs < before {
			t.Errorf("a query priced %d (%d before) runs %d times a minute, %d before", q.now, q.before, runs, before)
		}
	}
}

// runsAMinute is how many operations of cost a client's budget pays in a
// minute, charged as soon as the bucket holds their cost and never
// refunded, up to the requests a client may send in a minute.
func runsAMinute(budget int, refill float64, cost int) int {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	th := operation.NewThrottle(ratelimit.New(ratelimit.NewMemStore(10), func() time.Time { return now }), budget, refill)
	runs, most := 0, 60*app.DefaultClientRateLimit
	for end := now.Add(time.Minute); runs < most && !now.After(end); now = now.Add(10 * time.Millisecond) {
		for runs < most {
			if _, ok, _, err := th.Charge(context.Background(), cost); !ok || err != nil {
				break
			}
			runs++
		}
	}
	return runs
}
