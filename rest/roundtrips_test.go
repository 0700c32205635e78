package rest_test

import (
	"net/http"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/testkit"
)

// maxInvoiceRoundTrips is the bound on PostgreSQL round trips per
// invoice read (the read itself needs one: tenant context and its six
// queries travel in one batch).
const maxInvoiceRoundTrips = 7

// An invoice read must not pay a round trip per statement, per prepare or for
// BEGIN/COMMIT: the round trips on the wire between the instance's pool and
// PostgreSQL made on behalf of the caller (rate-limit leases included,
// background workers not) are counted over real HTTP requests.
// storage's TestReadRoundTrips pins the reads' own count exactly.
func TestInvoiceReadRoundTrips(t *testing.T) {
	rt := &storage.RoundTrips{}
	f := newFixture(t, apptest.Options{Configure: func(c *app.Config) { c.DBRoundTrips = rt }})
	inv := f.seed.Invoice
	cases := []struct {
		name, method, path, body string
		max                      float64
	}{
		{"invoice by id", "GET", "/api/p/v1/invoices?id=" + inv.ID.String(), "", maxInvoiceRoundTrips},
		{"invoice by number", "GET", "/api/p/v1/invoices?invoiceNumber=" + inv.Number, "", maxInvoiceRoundTrips},
	}
	const n = 20
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			get := func() {
				h := map[string]string{"Authorization": "Bearer " + f.all}
				if c.body != "" {
					h["Content-Type"] = "application/json"
				}
				res, body := testkit.Request(t, c.method, f.srv.URL+c.path, h, c.body)
				if res.StatusCode != http.StatusOK {
					t.Fatalf("status %d: %s", res.StatusCode, body)
				}
			}
			for range n { // the first use of a connection prepares its statements
				get()
			}
			before := rt.Callers()
			for range n {
				get()
			}
			per := float64(rt.Callers()-before) / n
			t.Logf("%s: %.2f PostgreSQL round trips per request", c.name, per)
			if per > c.max {
				t.Errorf("%s: %.2f PostgreSQL round trips per request, want at most %.0f", c.name, per, c.max)
			}
		})
	}
}
