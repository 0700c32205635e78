package graph_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
)

// scopedFields lists every field guarded by @hasScope with a query that
// reaches it and the path of the field in the answer.
var scopedFields = []struct {
	scope domain.Scope
	query string
	path  string // "root" or "root.<...>" as in errors[].path
	needs []domain.Scope
}{
	{"invoice:read", `{ invoice(number: "INV-1") { number } }`, "invoice", nil},
	{"driver:read", `{ settlementStatements(filter: {statementDateRange: {start: "2025-03-01T00:00:00Z", end: "2025-03-02T00:00:00Z"}}, page: 0, pageSize: 5) { total } }`, "settlementStatements", nil},
	{"driver:read", `{ settlementStatement(number: 1) { number } }`, "settlementStatement", nil},
	{"trailer:read", `{ trailers { total } }`, "trailers", nil},
	{"customer:read", `{ locations(pageSize: 5) { total } }`, "locations", nil},
	{"user:read", `{ users(page: 0, pageSize: 5) { total } }`, "users", nil},
	{"load:read", `{ load(loadNumber: "L-100") { loadNumber } }`, "load", nil},
	{"load:read", `{ invoice(number: "INV-1") { loads { load { loadNumber } } } }`, "invoice.loads.0.load", []domain.Scope{"invoice:read"}},
	{"customer:read", `{ load(loadNumber: "L-100") { stops { location { name } } } }`, "load.stops.0.location", []domain.Scope{"load:read"}},
	{"driver:read", `{ load(loadNumber: "L-100") { trips { drivers { name } } } }`, "load.trips.0.drivers", []domain.Scope{"load:read"}},
	{"trailer:read", `{ load(loadNumber: "L-100") { trips { trailer { trailerNum } } } }`, "load.trips.0.trailer", []domain.Scope{"load:read"}},
	{"carrier:read", `{ load(loadNumber: "L-100") { trips { carrier { name } } } }`, "load.trips.0.carrier", []domain.Scope{"load:read"}},
}

func pathString(p []any) string {
	parts := make([]string, len(p))
	for i, x := range p {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ".")
}

func TestScopeMatrix(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 3)
	for _, f := range scopedFields {
		t.Run(f.path+" "+string(f.scope), func(t *testing.T) {
			with := w.token(t, append(slices.Clone(f.needs), f.scope)...)
			out := gql(t, w.srv.URL, with, f.query, nil)
			if len(out.Errors) > 0 {
				t.Fatalf("with %s: %+v", f.scope, out.Errors)
			}
			// Every other read scope, but not this one.
			var others []domain.Scope
			for _, s := range allReadScopes {
				if s != f.scope {
					others = append(others, s)
				}
			}
			out = gql(t, w.srv.URL, w.token(t, others...), f.query, nil)
			at := false
			for i, e := range out.Errors {
				at = at || pathString(e.Path) == f.path
				if out.Code(i) != "FORBIDDEN" {
					t.Errorf("without %s: error %+v, want FORBIDDEN", f.scope, e)
				}
			}
			if !at {
				t.Fatalf("without %s: %+v, want FORBIDDEN at %s", f.scope, out.Errors, f.path)
			}
			if !strings.Contains(out.Errors[0].Message, string(f.scope)) {
				t.Errorf("message %q does not name the scope", out.Errors[0].Message)
			}
		})
	}
	// The event-type list needs only a valid token.
	out := gql(t, w.srv.URL, w.token(t, "fuel:read"), `{ eventTypes }`, nil)
	if len(out.Errors) > 0 {
		t.Errorf("eventTypes: %+v", out.Errors)
	}
}

func TestCrossTenantIsolation(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 10)
	tok := w.token(t, allReadScopes...) // tenant A
	// Tenant B's ids are unknown to A.
	out := gql(t, w.srv.URL, tok, `query($id: ID) { invoice(id: $id) { number } }`, map[string]any{"id": w.b.Invoice.String()})
	if out.Code(0) != "NOT_FOUND" {
		t.Errorf("B's invoice: %+v", out)
	}
	out = gql(t, w.srv.URL, tok, `{ settlementStatement(number: 25) { number } }`, nil) // only B has 25
	if out.Code(0) != "NOT_FOUND" {
		t.Errorf("B's statement 25: %+v", out)
	}
	out = gql(t, w.srv.URL, tok, `query($f: StatementFilter!) { settlementStatements(filter: $f, page: 0, pageSize: 100) { total } }`,
		map[string]any{"f": map[string]any{"statementDateRange": map[string]any{"start": "2025-03-01T00:00:00Z", "end": "2025-12-31T00:00:00Z"}, "driverId": w.b.Drivers[0].String()}})
	if got := string(out.Data["settlementStatements"]); got != `{"total":0}` {
		t.Errorf("B's driver through A: %s", got)
	}
	out = gql(t, w.srv.URL, tok, `query($ids: [ID!]) { locations(filter: {locationIds: $ids}, pageSize: 10) { total } trailers { total } users(page: 0, pageSize: 100) { total }
		settlementStatements(filter: {statementDateRange: {start: "2025-01-01T00:00:00Z", end: "2025-12-31T00:00:00Z"}}, page: 0, pageSize: 100) { total } }`,
		map[string]any{"ids": []string{w.b.Location.String()}})
	for name, want := range map[string]string{"locations": `{"total":0}`, "trailers": `{"total":1}`, "users": `{"total":5}`, "settlementStatements": `{"total":8}`} {
		if got := string(out.Data[name]); got != want {
			t.Errorf("%s: %s, want %s (A's own only)", name, got, want)
		}
	}
}

func TestStatementsPageCostsConstantSQL(t *testing.T) {
	t.Parallel()
	rt := &storage.RoundTrips{}
	frozen := time.Now()
	w := newWorldWith(t, 130, func(c *app.Config) {
		c.DBRoundTrips = rt
		c.RateLimitClock = func() time.Time { return frozen } // one rate-limit lease for the whole test
		c.GraphQLCostBudget, c.GraphQLCostRefill = 1e9, 1e9   // and one cost-budget lease
	})
	tok := w.token(t, "driver:read")
	counts := map[int]int64{}
	for _, size := range []int{1, 10, 100} {
		// The fewest round trips of a few requests: background work only adds.
		counts[size] = -1
		for i := range 6 {
			before := rt.Callers()
			out := gql(t, w.srv.URL, tok, searchQuery, map[string]any{"f": dateRange("2025-03-01T00:00:00Z", "2025-12-31T00:00:00Z"), "page": 0, "size": size})
			n := rt.Callers() - before
			var c connJSON
			out.Field(t, "settlementStatements", &c)
			if len(c.Items) != size || len(c.Items[size-1].LineItems) != 2 || c.Items[size-1].Driver.ID == "" {
				t.Fatalf("size %d: %d items", size, len(c.Items))
			}
			if i > 0 && (counts[size] < 0 || n < counts[size]) { // the first prepares the statements
				counts[size] = n
			}
		}
	}
	// Tenant context, count and page in one round trip; drivers, line items
	// and sub-lines in a second.
	if counts[100] != 2 || counts[100] != counts[1] || counts[10] != counts[1] {
		t.Fatalf("PostgreSQL round trips per page size: %v, want 2 for each", counts)
	}
	// Relations through dataloaders: one round trip per relation level.
	all := w.token(t, allReadScopes...)
	relations := func() int64 {
		before := rt.Callers()
		out := gql(t, w.srv.URL, all, `{ invoice(number: "INV-1") { loads { load { stops { location { name } } trips { drivers { name } trailer { trailerNum } carrier { name } } } } } }`, nil)
		if len(out.Errors) > 0 {
			t.Fatal(out.Errors)
		}
		return rt.Callers() - before
	}
	// The fewest of several requests: a connection's first use prepares,
	// and a level's batch closes on a 2 ms timer (loaders.BatchWait) that a
	// starved CPU may split; one unsplit request shows the bound.
	n := relations()
	for range 19 {
		n = min(n, relations())
	}
	// The invoice, the loads level, then locations (with their notes),
	// drivers, trailers and carriers: one round trip each.
	if n != 6 {
		t.Errorf("invoice with relations: %d round trips, want 6", n)
	}
}
