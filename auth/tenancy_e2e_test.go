package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/rest"
)

// crossTenantCheck reads as tenant A (token) and reports whether anything
// of tenant B came back. markerB is a value only tenant B's data contains.
type crossTenantCheck struct {
	name string
	run  func(t *testing.T, srv *apptest.Server, tokenA string, markerB string) (leaked bool)
}

// crossTenantChecks grows as resources land: add one entry per read path
// (REST route, GraphQL field, subscription, webhook delivery).
var crossTenantChecks = []crossTenantCheck{
	{"tenant transaction bound to the token's tenant", func(t *testing.T, srv *apptest.Server, tokenA, markerB string) bool {
		// The handler forgets its WHERE tenant_id on purpose: row-level
		// security under InTenant(principal.TenantID) must still hide B.
		h := srv.Auth.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			p, err := domain.Authenticated(r.Context())
			if err != nil {
				rest.WriteError(w, r, err)
				return
			}
			var names []string
			err = srv.DB.InTenant(r.Context(), p.TenantID, func(ctx context.Context, tx bun.Tx) error {
				return tx.NewRaw("SELECT name FROM api_clients UNION ALL SELECT name FROM subsidiaries UNION ALL SELECT name FROM tenants").Scan(ctx, &names)
			})
			if err != nil {
				rest.WriteError(w, r, err)
				return
			}
			rest.WriteJSON(w, 200, names)
		}))
		ps := httptest.NewServer(h)
		defer ps.Close()
		req, _ := http.NewRequest(http.MethodGet, ps.URL, nil)
		req.Header.Set("Authorization", "Bearer "+tokenA)
		resp, body := do(t, req)
		var names []string
		if resp.StatusCode != 200 || json.Unmarshal(body, &names) != nil || len(names) == 0 {
			t.Fatalf("tenant A's own read failed: %d %s", resp.StatusCode, body)
		}
		return slices.ContainsFunc(names, func(n string) bool { return n == markerB || n == "Tenant b" || n == "b Main" })
	}},
}

func TestTokenOfTenantANeverReachesTenantB(t *testing.T) {
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	a := apptest.NewTenant(t, srv, "a")
	b := apptest.NewTenant(t, srv, "b")
	const markerB = "tenant-b-only"
	if _, _, err := srv.Auth.CreateClient(ctx, b.ID, authSpec(markerB)); err != nil {
		t.Fatal(err)
	}
	tokenA := srv.Token(t, a, domain.ReadScopes...)
	for _, c := range crossTenantChecks {
		t.Run(c.name, func(t *testing.T) {
			if c.run(t, srv, tokenA, markerB) {
				t.Fatal("tenant A's token reached tenant B's data")
			}
		})
	}
}

func authSpec(name string) auth.ClientSpec {
	return auth.ClientSpec{Name: name, Scopes: []domain.Scope{domain.ScopeLoadRead}}
}
