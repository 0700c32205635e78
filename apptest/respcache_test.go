package apptest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
)

// cacheRig is two instances with response caches over one seeded database,
// as behind one load balancer, and a wide token of the seeded tenant.
type cacheRig struct {
	url        string
	res        *seed.Result
	tn         apptest.Tenant
	srv1, srv2 *apptest.Server
	token      string
}

var readScopes = []domain.Scope{domain.ScopeInvoiceRead, domain.ScopeDriverRead, domain.ScopeTrailerRead,
	domain.ScopeCustomerRead, domain.ScopeUserRead, domain.ScopeLoadRead}

func newCacheRig(t *testing.T, configure func(*app.Config)) *cacheRig {
	t.Helper()
	r := &cacheRig{}
	r.url, r.res = seedtest.URL(t, seed.Options{Tenant: "acme", Scale: 1})
	cacheOn := func(like *apptest.Server) func(*app.Config) {
		return func(c *app.Config) {
			c.ResponseCacheBytes = 16 << 20
			if like != nil {
				c.PublicURL = like.Config.PublicURL
			}
			if configure != nil {
				configure(c)
			}
		}
	}
	r.srv1 = apptest.Start(t, apptest.Options{DatabaseURL: r.url, Configure: cacheOn(nil)})
	r.srv2 = apptest.Start(t, apptest.Options{DatabaseURL: r.url, Configure: cacheOn(r.srv1)})
	r.tn = apptest.Tenant{ID: r.res.TenantID, Slug: "acme", SubsidiaryID: r.res.SubsidiaryID}
	r.token = r.srv1.Token(t, r.tn, append(readScopes, domain.ScopeLoadCreate, domain.ScopeLoadUpdate)...)
	return r
}

// cacheReq is one HTTP request of a test.
type cacheReq struct {
	method, path, body string
	header             map[string]string
}

type cacheRes struct {
	status int
	header http.Header
	body   []byte
}

func (res cacheRes) cacheStatus() string { return res.header.Get("Cache-Status") }

// answer is the body without what each request gets afresh (GraphQL's
// extensions.cost): a GraphQL answer's data and errors, else the body.
func (res cacheRes) answer() []byte {
	var gql struct {
		Data   json.RawMessage `json:"data"`
		Errors json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(res.body, &gql) != nil || gql.Data == nil {
		return res.body
	}
	return append(append(gql.Data, '|'), gql.Errors...)
}

func doCached(t *testing.T, srv *apptest.Server, token string, q cacheReq) cacheRes {
	t.Helper()
	var body io.Reader
	if q.body != "" {
		body = strings.NewReader(q.body)
	}
	req, err := http.NewRequest(q.method, srv.URL+q.path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if q.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range q.header {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return cacheRes{res.StatusCode, res.Header, b}
}

// sql runs statements on a connection of its own, as another system
// writing the same database would (the owner's rights, no tenant context).
func (r *cacheRig) sql(t *testing.T, stmt string, args ...any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, r.url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	tag, err := conn.Exec(ctx, stmt, args...)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	if tag.RowsAffected() == 0 {
		t.Fatalf("%s: no row written", stmt)
	}
}

// warm reads q on both instances until each answers from memory, and
// returns the answer.
func (r *cacheRig) warm(t *testing.T, token string, q cacheReq) cacheRes {
	t.Helper()
	first := doCached(t, r.srv1, token, q)
	if first.status != http.StatusOK {
		t.Fatalf("%s %s: %d %s", q.method, q.path, first.status, first.body)
	}
	for _, srv := range []*apptest.Server{r.srv1, r.srv2} {
		doCached(t, srv, token, q)
		again := doCached(t, srv, token, q)
		if again.cacheStatus() != "haulgraph; hit" || !bytes.Equal(again.answer(), first.answer()) {
			t.Fatalf("%s %s on %s: Cache-Status %q, same answer %t: the answer is not served from memory",
				q.method, q.path, srv.URL, again.cacheStatus(), bytes.Equal(again.answer(), first.answer()))
		}
	}
	return first
}

// Whoever writes a table a cached answer was computed from, the next read
// on either instance returns the new data: every table each cacheable REST
// read touches, written by plain SQL on a connection of another system.
func TestResponseCacheNeverStaleAfterSQLWrites(t *testing.T) {
	t.Parallel()
	r := newCacheRig(t, nil)
	tenant := r.res.TenantID
	stmt := r.res.Statements[reads.StatementProcessed]
	statement := cacheReq{method: "GET", path: "/api/p/v1/driver-settlement-statements/" + itoa(int(stmt))}
	search := cacheReq{method: "POST", path: "/api/p/v1/driver-settlement-statements/search",
		body: `{"Page":1,"PageSize":5,"DriverId":"` + r.res.DriverID.String() + `","StatementDateRange":{"Start":"` + r.res.StatementFrom.String() + `T00:00:00Z","End":"` + r.res.StatementTo.String() + `T00:00:00Z"}}`}
	invoice := cacheReq{method: "GET", path: "/api/p/v1/invoices?id=" + r.res.Invoice.ID.String()}
	load := cacheReq{method: "GET", path: "/api/p/v1/loads/" + r.res.LoadWithTrips}
	trailers := cacheReq{method: "GET", path: "/api/p/v1/trailers?limit=1000"}
	locations := cacheReq{method: "POST", path: "/api/p/v1/locations/search", body: `{"PageSize":5,"LocationIds":["` + r.res.LocationIDs[0].String() + `"]}`}
	users := cacheReq{method: "POST", path: "/api/p/v1/users/search", body: `{"Page":1,"PageSize":3}`}
	const inStatement = "(SELECT id FROM settlement_statements WHERE tenant_id = $1 AND number = $2)"
	const inInvoice = "invoice_id = $2"
	cases := []struct {
		name  string
		read  cacheReq
		write string
		args  []any
	}{
		{"settlement_statements", statement, "UPDATE settlement_statements SET pay_period_title = pay_period_title || '.' WHERE tenant_id = $1 AND number = $2", []any{tenant, stmt}},
		{"statement_line_items", statement, "UPDATE statement_line_items SET title = title || '.' WHERE statement_id = " + inStatement, []any{tenant, stmt}},
		{"statement_sub_lines", statement, "UPDATE statement_sub_lines SET description = description || '.' WHERE line_item_id IN (SELECT id FROM statement_line_items WHERE statement_id = " + inStatement + ")", []any{tenant, stmt}},
		{"drivers", statement, "UPDATE drivers SET name = name || '.' WHERE id = (SELECT driver_id FROM settlement_statements WHERE tenant_id = $1 AND number = $2)", []any{tenant, stmt}},
		{"settlement_statements (search)", search, "UPDATE settlement_statements SET pay_period_title = pay_period_title || '.' WHERE tenant_id = $1 AND driver_id = $2", []any{tenant, r.res.DriverID}},
		{"drivers (search)", search, "UPDATE drivers SET name = name || '.' WHERE id = $2 AND tenant_id = $1", []any{tenant, r.res.DriverID}},
		{"invoices", invoice, "UPDATE invoices SET number = number || '.' WHERE tenant_id = $1 AND id = $2", []any{tenant, r.res.Invoice.ID}},
		{"invoice_line_items", invoice, "UPDATE invoice_line_items SET name = name || '.' WHERE tenant_id = $1 AND " + inInvoice, []any{tenant, r.res.Invoice.ID}},
		{"invoice_payments", invoice, "UPDATE invoice_payments SET check_number = check_number || '.' WHERE tenant_id = $1 AND " + inInvoice, []any{tenant, r.res.Invoice.ID}},
		{"invoice_loads", invoice, "DELETE FROM invoice_loads WHERE tenant_id = $1 AND " + inInvoice, []any{tenant, r.res.Invoice.ID}},
		{"customers", invoice, "UPDATE customers SET name = name || '.' WHERE id = (SELECT customer_id FROM invoices WHERE tenant_id = $1 AND id = $2)", []any{tenant, r.res.Invoice.ID}},
		{"vendors", invoice, "UPDATE vendors SET name = name || '.' WHERE id = (SELECT vendor_id FROM invoices WHERE tenant_id = $1 AND id = $2)", []any{tenant, r.res.Invoice.ID}},
		{"loads", load, "UPDATE loads SET order_number = order_number || '.' WHERE tenant_id = $1 AND load_number = $2", []any{tenant, r.res.LoadWithTrips}},
		{"stops", load, "UPDATE stops SET name = name || '.' WHERE load_id = (SELECT id FROM loads WHERE tenant_id = $1 AND load_number = $2)", []any{tenant, r.res.LoadWithTrips}},
		{"trips", load, "UPDATE trips SET trip_number = trip_number || '.' WHERE load_id = (SELECT id FROM loads WHERE tenant_id = $1 AND load_number = $2)", []any{tenant, r.res.LoadWithTrips}},
		{"subsidiaries", load, "UPDATE subsidiaries SET name = name || '.' WHERE id = (SELECT subsidiary_id FROM loads WHERE tenant_id = $1 AND load_number = $2)", []any{tenant, r.res.LoadWithTrips}},
		{"trailers", trailers, "UPDATE trailers SET insurance_company = insurance_company || '.' WHERE tenant_id = $1 AND id = $2", []any{tenant, r.res.TrailerID}},
		{"fleets", trailers, "UPDATE fleets SET name = name || '.' WHERE id = (SELECT fleet_id FROM trailers WHERE tenant_id = $1 AND fleet_id IS NOT NULL LIMIT 1)", []any{tenant}},
		{"locations", locations, "UPDATE locations SET name = name || '.' WHERE tenant_id = $1 AND id = $2", []any{tenant, r.res.LocationIDs[0]}},
		{"location_notes", locations, "UPDATE location_notes SET description = description || '.' WHERE tenant_id = $1 AND location_id = $2", []any{tenant, r.res.LocationIDs[0]}},
		{"users", users, "UPDATE users SET name = name || '.' WHERE tenant_id = $1", []any{tenant}},
	}
	for _, c := range cases {
		before := r.warm(t, r.token, c.read)
		r.sql(t, c.write, c.args...)
		for _, srv := range []*apptest.Server{r.srv1, r.srv2} {
			after := doCached(t, srv, r.token, c.read)
			if after.status != http.StatusOK || bytes.Equal(after.answer(), before.answer()) {
				t.Errorf("%s: after the write %s answered %d, Cache-Status %q, the old body %t",
					c.name, srv.URL, after.status, after.cacheStatus(), bytes.Equal(after.body, before.body))
			}
		}
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
