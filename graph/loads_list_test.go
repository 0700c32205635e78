package graph_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/readstest"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
)

type loadsPage struct {
	TotalCount int
	PageInfo   struct {
		HasNextPage bool
		EndCursor   *string
	}
	Edges []struct{ Cursor string }
	Items []struct {
		LoadNumber, Status, SubsidiaryID string
		CustomerName                     *string
		Stops                            []struct{ Type string }
	}
}

const loadsQuery = `query($filter: LoadFilter, $first: Int, $after: String) { loads(filter: $filter, first: $first, after: $after) {
	totalCount pageInfo { hasNextPage endCursor } edges { cursor }
	items { loadNumber status subsidiaryId customerName stops { type } } } }`

// The loads list (the dispatch board's): every load of the caller's tenant
// once, newest load number first, through the cursors; filters by status and
// subsidiary; customerName as stored; bad arguments and a missing scope are
// refused.
func TestLoadsList(t *testing.T) {
	t.Parallel()
	url, res := seedtest.URL(t, seed.Options{Tenant: "acme", Scale: 1})
	srv := apptest.Start(t, apptest.Options{DatabaseURL: url})
	ta := apptest.Tenant{ID: res.TenantID, Slug: "acme", SubsidiaryID: res.SubsidiaryID}
	tb := apptest.NewTenant(t, srv, "globex")
	readstest.Seed(t, srv.DB, tb.ID, tb.SubsidiaryID, tb.Slug, 3)
	tok := srv.Token(t, ta, domain.ScopeLoadRead)
	count := func(q string, args ...any) int {
		var n int
		if err := srv.DB.Pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	list := func(t *testing.T, token string, vars map[string]any) loadsPage {
		t.Helper()
		var p loadsPage
		r := gql(t, srv.URL, token, loadsQuery, vars)
		if len(r.Errors) > 0 {
			t.Fatalf("errors: %+v", r.Errors)
		}
		r.Field(t, "loads", &p)
		return p
	}

	t.Run("pages through every load once, newest first", func(t *testing.T) {
		want := count(`SELECT count(*) FROM loads WHERE tenant_id = $1`, ta.ID)
		var all []string
		var after any
		for {
			p := list(t, tok, map[string]any{"first": 100, "after": after})
			if p.TotalCount != want {
				t.Fatalf("totalCount %d, want %d", p.TotalCount, want)
			}
			for i, it := range p.Items {
				all = append(all, it.LoadNumber)
				if p.Edges[i].Cursor == "" || len(it.Stops) == 0 {
					t.Fatalf("item %s without cursor or stops", it.LoadNumber)
				}
			}
			if !p.PageInfo.HasNextPage {
				break
			}
			after = *p.PageInfo.EndCursor
		}
		if len(all) != want {
			t.Fatalf("%d loads over all pages, want %d", len(all), want)
		}
		for i := 1; i < len(all); i++ {
			if all[i-1] <= all[i] {
				t.Fatalf("not newest first: %s then %s", all[i-1], all[i])
			}
		}
		if p := list(t, tok, nil); len(p.Items) != domain.DefaultPageSize {
			t.Fatalf("default page: %d items", len(p.Items))
		}
	})

	t.Run("filters", func(t *testing.T) {
		p := list(t, tok, map[string]any{"first": 100, "filter": map[string]any{"statuses": []string{"Dispatched", "InTransit"}}})
		want := count(`SELECT count(*) FROM loads WHERE tenant_id = $1 AND status IN ('Dispatched', 'InTransit')`, ta.ID)
		if p.TotalCount != want || want == 0 {
			t.Fatalf("statuses: totalCount %d, want %d (> 0)", p.TotalCount, want)
		}
		for _, it := range p.Items {
			if it.Status != "Dispatched" && it.Status != "InTransit" {
				t.Fatalf("status filter let %s (%s) through", it.LoadNumber, it.Status)
			}
		}
		sub := res.SubsidiaryIDs[len(res.SubsidiaryIDs)-1].String()
		p = list(t, tok, map[string]any{"first": 100, "filter": map[string]any{"subsidiaryId": sub}})
		if want := count(`SELECT count(*) FROM loads WHERE tenant_id = $1 AND subsidiary_id = $2`, ta.ID, sub); p.TotalCount != want || want == 0 {
			t.Fatalf("subsidiary: totalCount %d, want %d (> 0)", p.TotalCount, want)
		}
		for _, it := range p.Items {
			if it.SubsidiaryID != sub {
				t.Fatalf("subsidiary filter let %s through", it.LoadNumber)
			}
		}
	})

	t.Run("customer names", func(t *testing.T) {
		p := list(t, tok, map[string]any{"first": 100})
		named := 0
		for _, it := range p.Items {
			var want *string
			_ = srv.DB.Pool.QueryRow(context.Background(), `SELECT c.name FROM loads l LEFT JOIN customers c ON c.id = l.customer_id
				WHERE l.tenant_id = $1 AND l.load_number = $2`, ta.ID, it.LoadNumber).Scan(&want)
			if (want == nil) != (it.CustomerName == nil) || (want != nil && *want != *it.CustomerName) {
				t.Fatalf("%s: customerName %v, want %v", it.LoadNumber, it.CustomerName, want)
			}
			if want != nil {
				named++
			}
		}
		if named == 0 {
			t.Fatal("no load with a customer on the first page")
		}
	})

	t.Run("tenant isolation", func(t *testing.T) {
		p := list(t, srv.Token(t, tb, domain.ScopeLoadRead), map[string]any{"first": 100})
		if p.TotalCount != 1 || len(p.Items) != 1 || p.Items[0].LoadNumber != "L-100" {
			t.Fatalf("tenant B sees %+v", p)
		}
		p = list(t, tok, map[string]any{"first": 100, "filter": map[string]any{"subsidiaryId": tb.SubsidiaryID.String()}})
		if p.TotalCount != 0 || len(p.Items) != 0 {
			t.Fatalf("tenant A reaches B's subsidiary: %+v", p)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		for _, c := range []struct {
			vars map[string]any
			code string
			text string
		}{
			{map[string]any{"first": 0}, "BAD_USER_INPUT", "first"},
			{map[string]any{"first": 101}, "BAD_USER_INPUT", "first"},
			{map[string]any{"after": "forged"}, "BAD_USER_INPUT", "cursor"},
			{map[string]any{"filter": map[string]any{"subsidiaryId": "x"}}, "BAD_USER_INPUT", "subsidiaryId"},
			{map[string]any{"filter": map[string]any{"statuses": []string{"Parked"}}}, "GRAPHQL_VALIDATION_FAILED", "Parked"},
		} {
			r := gql(t, srv.URL, tok, loadsQuery, c.vars)
			if len(r.Errors) == 0 || r.Code(0) != c.code || !strings.Contains(fmt.Sprint(r.Errors[0]), c.text) {
				t.Fatalf("%v: errors %+v, want %s naming %q", c.vars, r.Errors, c.code, c.text)
			}
		}
		r := gql(t, srv.URL, srv.Token(t, ta, domain.ScopeDriverRead), loadsQuery, nil)
		if r.Code(0) != "FORBIDDEN" || !r.IsNull("loads") {
			t.Fatalf("without load:read: %+v", r)
		}
	})
}
