package rest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

var (
	isoDate     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	isoDateTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`)
)

type money struct {
	Amount   json.Number
	Currency *json.Number
}

type page[T any] struct {
	Page, PageSize, Total int
	Items                 []T
}

// One test per route, each answered on every accepted version, on seeded
// data, every exchange validated against the OpenAPI document.
func TestRoutes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	from, to := f.seed.StatementFrom.String()+"T00:00:00Z", f.seed.StatementTo.String()+"T00:00:00Z"

	t.Run("invoices", func(t *testing.T) {
		inv := f.seed.Invoice
		for _, v := range versions {
			var byID, byNumber map[string]any
			res, body := f.call(t, "GET", "/api/p/"+v+"/invoices?id="+inv.ID.String(), f.all, "")
			ok(t, res, body, &byID)
			res, body = f.call(t, "GET", "/api/p/"+v+"/invoices?invoiceNumber="+inv.Number, f.all, "")
			ok(t, res, body, &byNumber)
			if fmt.Sprint(byID) != fmt.Sprint(byNumber) {
				t.Fatalf("%s: by id and by number differ", v)
			}
			if byID["Id"] != inv.ID.String() || byID["Number"] != inv.Number || byID["Type"] != string(inv.Type) || byID["Status"] != string(inv.Status) {
				t.Fatalf("%s: invoice %v, want %+v", v, byID, inv)
			}
			total := byID["Total"].(map[string]any)
			if _, err := total["Amount"].(json.Number).Float64(); err != nil {
				t.Fatalf("Total.Amount %v is not a number", total["Amount"])
			}
			if c, err := total["Currency"].(json.Number).Int64(); err != nil || c != 840 {
				t.Fatalf("Total.Currency %v, want the integer 840", total["Currency"])
			}
			if !isoDateTime.MatchString(byID["CreatedDate"].(string)) {
				t.Fatalf("CreatedDate %v is not ISO 8601", byID["CreatedDate"])
			}
			for _, list := range []string{"LineItems", "Loads", "Payments"} {
				if items, _ := byID[list].([]any); len(items) == 0 {
					t.Fatalf("%s: the seeded Paid LoadInvoice has no %s", v, list)
				}
			}
		}
		// Query parameter names bind case-insensitively.
		var inv2 map[string]any
		res, body := f.call(t, "GET", "/api/p/v1/invoices?InvoiceNumber="+inv.Number, f.all, "")
		ok(t, res, body, &inv2)
	})

	t.Run("statement search", func(t *testing.T) {
		for _, v := range versions {
			var p page[map[string]any]
			res, body := f.call(t, "POST", "/api/p/"+v+"/driver-settlement-statements/search", f.all,
				`{"Page":0,"PageSize":7,"StatementDateRange":{"Start":"`+from+`","End":"`+to+`"}}`)
			ok(t, res, body, &p)
			if p.Page != 0 || p.PageSize != 7 || p.Total != f.seed.VisibleStatements || len(p.Items) != 7 {
				t.Fatalf("%s: envelope %d/%d/%d with %d items, want 0/7/%d with 7", v, p.Page, p.PageSize, p.Total, len(p.Items), f.seed.VisibleStatements)
			}
			for _, st := range p.Items {
				if s := st["Status"]; s != "Processed" && s != "Failed" {
					t.Fatalf("statement in status %v returned", s)
				}
				if !isoDate.MatchString(st["StatementDate"].(string)) {
					t.Fatalf("StatementDate %v is not yyyy-MM-dd", st["StatementDate"])
				}
				for k, val := range st["Totals"].(map[string]any) {
					if val == nil {
						t.Fatalf("Totals.%s is null: totals with no value must be absent", k)
					}
				}
			}
		}
		// Page 1 follows page 0 without overlap.
		var p0, p1 page[map[string]any]
		q := `"PageSize":5,"StatementDateRange":{"Start":"` + from + `","End":"` + to + `"}}`
		res, body := f.call(t, "POST", "/api/p/v1/driver-settlement-statements/search", f.all, `{"Page":0,`+q)
		ok(t, res, body, &p0)
		res, body = f.call(t, "POST", "/api/p/v1/driver-settlement-statements/search", f.all, `{"Page":1,`+q)
		ok(t, res, body, &p1)
		if p1.Page != 1 || len(p1.Items) != 5 || p0.Items[4]["Number"] == p1.Items[0]["Number"] {
			t.Fatalf("page 1 does not follow page 0")
		}
		// Filters: driver type (case-insensitive) and driver id.
		for dt, n := range f.seed.VisibleByDriverType {
			var p page[map[string]any]
			res, body := f.call(t, "POST", "/api/p/v1/driver-settlement-statements/search", f.all,
				`{"Page":0,"PageSize":100,"DriverType":"`+lower(string(dt))+`","StatementDateRange":{"Start":"`+from+`","End":"`+to+`"}}`)
			ok(t, res, body, &p)
			if p.Total != n {
				t.Fatalf("DriverType %s: Total %d, want %d", dt, p.Total, n)
			}
		}
		var pd page[map[string]any]
		res, body = f.callAs(t, "POST", "/api/p/v1/driver-settlement-statements/search", f.all, "application/json-patch+json",
			`{"Page":0,"PageSize":100,"DriverId":"`+f.seed.DriverID.String()+`","StatementDateRange":{"Start":"`+from+`","End":"`+to+`"}}`)
		ok(t, res, body, &pd)
		if pd.Total != f.seed.DriverVisibleStatements {
			t.Fatalf("DriverId: Total %d, want %d", pd.Total, f.seed.DriverVisibleStatements)
		}
		for _, st := range pd.Items {
			if st["Driver"].(map[string]any)["Id"] != f.seed.DriverID.String() {
				t.Fatal("DriverId filter returned another driver's statement")
			}
		}
	})

	t.Run("statement by number", func(t *testing.T) {
		for _, v := range versions {
			for _, status := range reads.VisibleStatementStatuses {
				var st map[string]any
				n := f.seed.Statements[status]
				res, body := f.call(t, "GET", "/api/p/"+v+"/driver-settlement-statements/"+strconv.Itoa(int(n)), f.all, "")
				ok(t, res, body, &st)
				if st["Status"] != string(status) || st["Number"] != json.Number(strconv.Itoa(int(n))) {
					t.Fatalf("%s: statement %d: %v", v, n, st)
				}
			}
		}
		// In flight or unsettled: never visible.
		for _, status := range []reads.StatementStatus{reads.StatementGenerating, reads.StatementReversing, reads.StatementOpen, reads.StatementDraft} {
			n, seeded := f.seed.Statements[status]
			if !seeded {
				t.Fatalf("the seed has no %s statement", status)
			}
			res, body := f.call(t, "GET", "/api/p/v1/driver-settlement-statements/"+strconv.Itoa(int(n)), f.all, "")
			wantProblem(t, res, body, http.StatusNotFound)
		}
		res, body := f.call(t, "GET", "/api/p/v1/driver-settlement-statements/2147483647", f.all, "")
		wantProblem(t, res, body, http.StatusNotFound)
	})

	t.Run("trailers", func(t *testing.T) {
		for _, v := range versions {
			var list []map[string]any
			res, body := f.call(t, "GET", "/api/p/"+v+"/trailers", f.all, "")
			ok(t, res, body, &list)
			if len(list) != f.seed.Counts["trailers"] {
				t.Fatalf("%s: %d trailers, want %d", v, len(list), f.seed.Counts["trailers"])
			}
			if !slices.ContainsFunc(list, func(tr map[string]any) bool { return tr["Id"] == f.seed.TrailerID.String() }) {
				t.Fatal("the seeded trailer is missing")
			}
		}
	})

	t.Run("location search", func(t *testing.T) {
		for _, v := range versions {
			var p page[map[string]any]
			res, body := f.call(t, "POST", "/api/p/"+v+"/locations/search", f.all, `{"PageSize":5}`)
			ok(t, res, body, &p)
			if p.Page != 0 || p.PageSize != 5 || p.Total != f.seed.Counts["locations"] || len(p.Items) != 5 {
				t.Fatalf("%s: envelope %d/%d/%d, %d items", v, p.Page, p.PageSize, p.Total, len(p.Items))
			}
		}
		ids := f.seed.LocationIDs[:3]
		var p page[map[string]any]
		res, body := f.call(t, "POST", "/api/p/v1/locations/search", f.all,
			fmt.Sprintf(`{"Page":0,"PageSize":10,"LocationIds":["%s","%s","%s"],"Status":null,"CreatedDateRange":null}`, ids[0], ids[1], ids[2]))
		ok(t, res, body, &p)
		if p.Total != 3 || len(p.Items) != 3 {
			t.Fatalf("LocationIds filter: Total %d", p.Total)
		}
		res, body = f.call(t, "POST", "/api/p/v1/locations/search", f.all, `{"PageSize":100,"Status":["Disabled"]}`)
		ok(t, res, body, &p)
		if p.Total == 0 {
			t.Fatal("no Disabled location in the seed")
		}
		for _, l := range p.Items {
			if l["Status"] != "Disabled" {
				t.Fatalf("Status filter returned %v", l["Status"])
			}
		}
	})

	t.Run("user search", func(t *testing.T) {
		for _, v := range versions {
			var p page[map[string]any]
			res, body := f.call(t, "POST", "/api/p/"+v+"/users/search", f.all, `{"Page":0,"PageSize":10,"Keyword":""}`)
			ok(t, res, body, &p)
			if p.Total != f.seed.Counts["users"] || len(p.Items) != 10 {
				t.Fatalf("%s: Total %d, %d items; want %d", v, p.Total, len(p.Items), f.seed.Counts["users"])
			}
		}
		var all page[map[string]any]
		res, body := f.call(t, "POST", "/api/p/v1/users/search", f.all, `{"Page":0,"PageSize":1}`)
		ok(t, res, body, &all)
		name := all.Items[0]["UserName"].(string)
		var p page[map[string]any]
		res, body = f.call(t, "POST", "/api/p/v1/users/search", f.all, `{"Page":0,"PageSize":100,"Keyword":"`+name+`"}`)
		ok(t, res, body, &p)
		if p.Total < 1 || p.Total >= all.Total {
			t.Fatalf("Keyword %q matched %d of %d users", name, p.Total, all.Total)
		}
	})

	t.Run("load", func(t *testing.T) {
		for _, v := range versions {
			var l map[string]any
			res, body := f.call(t, "GET", "/api/p/"+v+"/loads/"+f.seed.LoadWithTrips, f.all, "")
			ok(t, res, body, &l)
			if l["LoadNumber"] != f.seed.LoadWithTrips || len(l["Trips"].([]any)) == 0 || len(l["Stops"].([]any)) == 0 {
				t.Fatalf("%s: load %v", v, l)
			}
		}
		res, body := f.call(t, "GET", "/api/p/v1/loads/NO-SUCH-LOAD", f.all, "")
		wantProblem(t, res, body, http.StatusNotFound)
	})

	t.Run("event types", func(t *testing.T) {
		// Any valid token: one with a single unrelated scope will do.
		tok := f.srv.Token(t, f.tenant, domain.ScopeUserRead)
		for _, v := range versions {
			var types []string
			res, body := f.call(t, "GET", "/api/p/"+v+"/webhooks/event-types", tok, "")
			ok(t, res, body, &types)
			if !slices.Equal(types, domain.EventTypes) {
				t.Fatalf("%s: %v", v, types)
			}
		}
	})

	t.Run("scopes", func(t *testing.T) {
		tok := f.srv.Token(t, f.tenant, domain.ScopeUserRead)
		for _, r := range []struct{ method, path, body, scope string }{
			{"GET", "/api/p/v1/invoices?id=" + f.seed.Invoice.ID.String(), "", "invoice:read"},
			{"POST", "/api/p/v1/driver-settlement-statements/search", `{"Page":0,"PageSize":1,"StatementDateRange":{"Start":"` + from + `","End":"` + to + `"}}`, "driver:read"},
			{"GET", "/api/p/v1/driver-settlement-statements/1", "", "driver:read"},
			{"GET", "/api/p/v1/trailers", "", "trailer:read"},
			{"POST", "/api/p/v1/locations/search", `{"PageSize":1}`, "customer:read"},
			{"GET", "/api/p/v1/loads/" + f.seed.LoadWithTrips, "", "load:read"},
		} {
			res, body := f.call(t, r.method, r.path, tok, r.body)
			wantProblem(t, res, body, http.StatusForbidden)
			if want := `Bearer error="insufficient_scope", scope="` + r.scope + `"`; res.Header.Get("WWW-Authenticate") != want {
				t.Fatalf("%s: WWW-Authenticate %q, want %q", r.path, res.Header.Get("WWW-Authenticate"), want)
			}
		}
	})

	t.Run("tenant isolation", func(t *testing.T) {
		other := apptest.NewTenant(t, f.srv, "other")
		tok := f.srv.Token(t, other, readScopes...)
		res, body := f.call(t, "GET", "/api/p/v1/invoices?id="+f.seed.Invoice.ID.String(), tok, "")
		wantProblem(t, res, body, http.StatusNotFound)
		var p page[map[string]any]
		res, body = f.call(t, "POST", "/api/p/v1/users/search", tok, `{"Page":0,"PageSize":10}`)
		ok(t, res, body, &p)
		if p.Total != 0 || len(p.Items) != 0 {
			t.Fatalf("another tenant sees %d users", p.Total)
		}
		var trailers []any
		res, body = f.call(t, "GET", "/api/p/v1/trailers", tok, "")
		ok(t, res, body, &trailers)
		if len(trailers) != 0 || string(body) != "[]\n" {
			t.Fatalf("another tenant sees trailers: %s", body)
		}
	})
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}
