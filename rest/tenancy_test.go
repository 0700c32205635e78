package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/readstest"
	"github.com/haulgraph/haulgraph/testkit"
)

// Two tenants with the same invoice number, load number and statement
// numbers: every REST route read with tenant A's token answers A's data and
// never mentions one of B's ids.
func TestRESTNeverCrossesTenants(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	ta := apptest.NewTenant(t, srv, "a")
	tb := apptest.NewTenant(t, srv, "b")
	a := readstest.Seed(t, srv.DB, ta.ID, ta.SubsidiaryID, "a", 10)
	b := readstest.Seed(t, srv.DB, tb.ID, tb.SubsidiaryID, "b", 10)
	tok := srv.Token(t, ta, domain.ReadScopes...)
	bIDs := []string{b.Tenant.String(), b.Sub.String(), b.Fleet.String(), b.Customer.String(), b.Vendor.String(), b.Carrier.String(),
		b.Invoice.String(), b.Load.String(), b.Trailer.String(), b.Location.String(), b.Drivers[0].String(), b.Drivers[1].String(), b.Drivers[2].String()}
	window := `"StatementDateRange":{"Start":"2025-03-01T00:00:00Z","End":"2025-12-31T00:00:00Z"}`
	for _, c := range []struct {
		method, path, body, wantA string
	}{
		{"GET", "/api/p/v1/invoices?invoiceNumber=INV-1", "", a.Invoice.String()},
		{"POST", "/api/p/v1/driver-settlement-statements/search", `{"Page":0,"PageSize":100,` + window + `}`, a.Drivers[0].String()},
		{"GET", "/api/p/v1/driver-settlement-statements/1", "", a.Drivers[0].String()},
		{"GET", "/api/p/v1/trailers", "", a.Trailer.String()},
		{"POST", "/api/p/v1/locations/search", `{"PageSize":100}`, a.Location.String()},
		{"POST", "/api/p/v1/users/search", `{"Page":0,"PageSize":100}`, `"Total":5`},
		{"GET", "/api/p/v1/loads/L-100", "", a.Load.String()},
	} {
		h := map[string]string{"Authorization": "Bearer " + tok}
		if c.body != "" {
			h["Content-Type"] = "application/json"
		}
		res, body := testkit.Request(t, c.method, srv.URL+c.path, h, c.body)
		if res.StatusCode != http.StatusOK || !strings.Contains(string(body), c.wantA) {
			t.Fatalf("%s %s: tenant A's own read failed: %d %s", c.method, c.path, res.StatusCode, body)
		}
		for _, id := range bIDs {
			if strings.Contains(string(body), id) {
				t.Fatalf("%s %s: tenant A's token reached tenant B's %s: %s", c.method, c.path, id, body)
			}
		}
	}
	// B's invoice by id is simply not found for A.
	res, body := testkit.Request(t, "GET", srv.URL+"/api/p/v1/invoices?id="+b.Invoice.String(), map[string]string{"Authorization": "Bearer " + tok}, "")
	wantProblem(t, res, body, http.StatusNotFound)
}
