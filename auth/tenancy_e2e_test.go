package auth_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/storage/readstest"
	"github.com/haulgraph/haulgraph/testkit"
)

// tenancyEnv is two seeded tenants and a token of tenant A holding every
// read scope.
type tenancyEnv struct {
	srv    *apptest.Server
	tokenA string
	a, b   readstest.Fixture
}

// leaksB reports whether body mentions any id of tenant B's fixture.
func (e tenancyEnv) leaksB(body string) bool {
	f := e.b
	for _, id := range append([]string{f.Tenant.String(), f.Sub.String(), f.Invoice.String(), f.Load.String(), f.Trailer.String(),
		f.Location.String(), f.Customer.String(), f.Carrier.String()}, f.Drivers[0].String(), f.Drivers[1].String(), f.Drivers[2].String()) {
		if strings.Contains(body, id) {
			return true
		}
	}
	return false
}

// crossTenantChecks: one entry per read path. Each reads as tenant A,
// fails the test if A's own read does not work, and returns the body that
// must not mention tenant B. Add REST routes, subscriptions and webhook
// deliveries here as they land.
var crossTenantChecks = []struct {
	name string
	read func(t *testing.T, e tenancyEnv) string
}{
	{"tenant transaction bound to the token's tenant", func(t *testing.T, e tenancyEnv) string {
		// The handler forgets its WHERE tenant_id on purpose: row-level
		// security under InTenant(principal.TenantID) must still hide B.
		h := e.srv.Auth.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, err := domain.Authenticated(r.Context())
			if err != nil {
				rest.WriteError(w, r, err)
				return
			}
			var ids []string
			err = e.srv.DB.InTenant(r.Context(), p.TenantID, func(ctx context.Context, tx bun.Tx) error {
				return tx.NewRaw(`SELECT id::text FROM trailers UNION ALL SELECT id::text FROM invoices UNION ALL SELECT id::text FROM loads
					UNION ALL SELECT id::text FROM subsidiaries UNION ALL SELECT id::text FROM tenants`).Scan(ctx, &ids)
			})
			if err != nil {
				rest.WriteError(w, r, err)
				return
			}
			rest.WriteJSON(w, 200, ids)
		}))
		ps := httptest.NewServer(h)
		defer ps.Close()
		req, _ := http.NewRequest(http.MethodGet, ps.URL, nil)
		req.Header.Set("Authorization", "Bearer "+e.tokenA)
		resp, body := testkit.Do(t, req)
		if resp.StatusCode != 200 || !strings.Contains(string(body), e.a.Trailer.String()) {
			t.Fatalf("tenant A's own read failed: %d %s", resp.StatusCode, body)
		}
		return string(body)
	}},
	{"GraphQL trailers", func(t *testing.T, e tenancyEnv) string {
		body := graphQL(t, e, `{ trailers(first: 100) { items { id subsidiaryId } } }`)
		if !strings.Contains(body, e.a.Trailer.String()) {
			t.Fatalf("A's trailer missing: %s", body)
		}
		return body
	}},
	{"GraphQL invoice by tenant B's id", func(t *testing.T, e tenancyEnv) string {
		body := graphQL(t, e, `{ invoice(id: "`+e.b.Invoice.String()+`") { id } }`)
		if !strings.Contains(body, `"invoice":null`) {
			t.Fatalf("B's invoice not refused: %s", body)
		}
		return strings.ReplaceAll(body, e.b.Invoice.String(), "") // the query itself names it
	}},
	{"GraphQL load by a number both tenants use", func(t *testing.T, e tenancyEnv) string {
		body := graphQL(t, e, `{ load(loadNumber: "L-100") { id } }`)
		if !strings.Contains(body, e.a.Load.String()) {
			t.Fatalf("A's load L-100 missing: %s", body)
		}
		return body
	}},
}

func graphQL(t *testing.T, e tenancyEnv, query string) string {
	t.Helper()
	resp, body := testkit.GraphQL(t, e.srv.URL, e.tokenA, query, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("graphql: %d %s", resp.StatusCode, body)
	}
	return string(body)
}

func TestTokenOfTenantANeverReachesTenantB(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	ta := apptest.NewTenant(t, srv, "a")
	tb := apptest.NewTenant(t, srv, "b")
	e := tenancyEnv{
		srv: srv,
		a:   readstest.Seed(t, srv.DB, ta.ID, ta.SubsidiaryID, "a", 3),
		b:   readstest.Seed(t, srv.DB, tb.ID, tb.SubsidiaryID, "b", 3),
	}
	if _, _, err := srv.Auth.CreateClient(context.Background(), tb.ID, auth.ClientSpec{Name: "b", Scopes: domain.ReadScopes}); err != nil {
		t.Fatal(err)
	}
	e.tokenA = srv.Token(t, ta, domain.ReadScopes...)
	for _, c := range crossTenantChecks {
		t.Run(c.name, func(t *testing.T) {
			if body := c.read(t, e); e.leaksB(body) {
				t.Fatalf("tenant A's token reached tenant B's data: %s", body)
			}
		})
	}
}
