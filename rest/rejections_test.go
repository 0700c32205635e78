package rest_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/testkit"
)

// Every rejection of docs/api-contract.md §4, §7 and §8: status, problem+json and the field the
// errors map names.
func TestRejections(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	const day1, day2 = "2025-01-01T00:00:00Z", "2025-03-31T00:00:00Z"
	window := `"StatementDateRange":{"Start":"` + day1 + `","End":"` + day2 + `"}`
	search := "/api/p/v1/driver-settlement-statements/search"

	fields := []struct {
		name, method, path, body, field string
	}{
		{"invoice without id or number", "GET", "/api/p/v1/invoices", "", "id"},
		{"invoice with empty id and number", "GET", "/api/p/v1/invoices?id=&invoiceNumber=", "", "invoiceNumber"},
		{"invoice id not a UUID", "GET", "/api/p/v1/invoices?id=42", "", "id"},
		{"statement search without range", "POST", search, `{"Page":0,"PageSize":10}`, "StatementDateRange"},
		{"statement search without End", "POST", search, `{"Page":0,"PageSize":10,"StatementDateRange":{"Start":"` + day1 + `"}}`, "StatementDateRange.End"},
		{"statement search with null End", "POST", search, `{"Page":0,"PageSize":10,"StatementDateRange":{"Start":"` + day1 + `","End":null}}`, "StatementDateRange.End"},
		{"statement search Start not a whole day", "POST", search, `{"Page":0,"PageSize":10,"StatementDateRange":{"Start":"2025-01-01T08:00:00Z","End":"` + day2 + `"}}`, "StatementDateRange.Start"},
		{"statement search End not a whole UTC day", "POST", search, `{"Page":0,"PageSize":10,"StatementDateRange":{"Start":"` + day1 + `","End":"2025-03-31T00:00:00+02:00"}}`, "StatementDateRange.End"},
		{"statement search End not a date-time", "POST", search, `{"Page":0,"PageSize":10,"StatementDateRange":{"Start":"` + day1 + `","End":"next week"}}`, "StatementDateRange.End"},
		{"statement search PageSize 0", "POST", search, `{"Page":0,"PageSize":0,` + window + `}`, "PageSize"},
		{"statement search PageSize negative", "POST", search, `{"Page":0,"PageSize":-5,` + window + `}`, "PageSize"},
		{"statement search PageSize 101", "POST", search, `{"Page":0,"PageSize":101,` + window + `}`, "PageSize"},
		{"statement search PageSize absent", "POST", search, `{"Page":0,` + window + `}`, "PageSize"},
		{"statement search Page beyond any list", "POST", search, `{"Page":100000000000000000,"PageSize":100,` + window + `}`, "Page"},
		{"user search Page beyond any list", "POST", "/api/p/v1/users/search", `{"Page":9223372036854775807,"PageSize":2}`, "Page"},
		{"statement search negative Page", "POST", search, `{"Page":-1,"PageSize":10,` + window + `}`, "Page"},
		{"statement search unknown DriverType", "POST", search, `{"Page":0,"PageSize":10,"DriverType":"TRUCKER",` + window + `}`, "DriverType"},
		{"statement search DriverId not a UUID", "POST", search, `{"Page":0,"PageSize":10,"DriverId":"driver-7",` + window + `}`, "DriverId"},
		{"statement search PageSize not an integer", "POST", search, `{"Page":0,"PageSize":"ten",` + window + `}`, "PageSize"},
		{"statement search PageSize fractional", "POST", search, `{"Page":0,"PageSize":2.5,` + window + `}`, "PageSize"},
		{"statement search unknown field", "POST", search, `{"Page":0,"PageSize":10,"Sort":"Number",` + window + `}`, "Sort"},
		{"statement number not an integer", "GET", "/api/p/v1/driver-settlement-statements/abc", "", "number"},
		{"statement number beyond int32", "GET", "/api/p/v1/driver-settlement-statements/2147483648", "", "number"},
		{"location search PageSize 0", "POST", "/api/p/v1/locations/search", `{"PageSize":0}`, "PageSize"},
		{"location search PageSize negative", "POST", "/api/p/v1/locations/search", `{"Page":0,"PageSize":-1}`, "PageSize"},
		{"location search PageSize absent", "POST", "/api/p/v1/locations/search", `{"Page":0}`, "PageSize"},
		{"location search unknown status", "POST", "/api/p/v1/locations/search", `{"PageSize":5,"Status":["Closed"]}`, "Status"},
		{"location search id not a UUID", "POST", "/api/p/v1/locations/search", `{"PageSize":5,"LocationIds":["x"]}`, "LocationIds"},
		{"user search PageSize 0", "POST", "/api/p/v1/users/search", `{"Page":0,"PageSize":0}`, "PageSize"},
		{"user search PageSize negative", "POST", "/api/p/v1/users/search", `{"Page":0,"PageSize":-10}`, "PageSize"},
		{"user search Keyword too long", "POST", "/api/p/v1/users/search", `{"Page":0,"PageSize":5,"Keyword":"` + strings.Repeat("k", 201) + `"}`, "Keyword"},
		{"malformed JSON", "POST", search, `{"Page":0,"PageSize":`, "body"},
		{"JSON syntax error", "POST", "/api/p/v1/users/search", `{"Page":0 "PageSize":5}`, "body"},
		{"JSON array body", "POST", "/api/p/v1/locations/search", `[{"PageSize":5}]`, "body"},
		{"two JSON documents", "POST", "/api/p/v1/users/search", `{"Page":0,"PageSize":5}{"Page":1}`, "body"},
		{"empty body", "POST", "/api/p/v1/users/search", ` `, "body"},
	}
	for _, c := range fields {
		t.Run(c.name, func(t *testing.T) {
			res, body := f.call(t, c.method, c.path, f.all, c.body)
			wantFieldError(t, res, body, c.field)
		})
	}

	t.Run("every rule at once names every field", func(t *testing.T) {
		res, body := f.call(t, "POST", search, f.all, `{"Page":-1,"PageSize":500,"DriverType":"x","DriverId":"y","StatementDateRange":{"Start":"2025-01-01T01:00:00Z"}}`)
		p := wantProblem(t, res, body, http.StatusBadRequest)
		for _, k := range []string{"Page", "PageSize", "DriverType", "DriverId", "StatementDateRange.Start", "StatementDateRange.End"} {
			if len(p.Errors[k]) == 0 {
				t.Errorf("errors lack %s: %s", k, body)
			}
		}
	})

	t.Run("unsupported versions", func(t *testing.T) {
		for _, v := range []string{"v3", "v0", "v1.1", "v2.1", "latest"} {
			res, body := testkit.Request(t, "GET", f.srv.URL+"/api/p/"+v+"/trailers", map[string]string{"Authorization": "Bearer " + f.all}, "")
			p := wantProblem(t, res, body, http.StatusNotFound)
			if !strings.Contains(p.Detail, "unsupported API version") {
				t.Fatalf("%s: %s", v, body)
			}
		}
	})

	t.Run("unsupported media type", func(t *testing.T) {
		for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "application/xml", ""} {
			res, body := f.callAs(t, "POST", "/api/p/v1/users/search", f.all, ct, `{"Page":0,"PageSize":5}`)
			wantProblem(t, res, body, http.StatusUnsupportedMediaType)
		}
		// Both listed JSON types, with parameters, are accepted.
		for _, ct := range []string{"application/json; charset=utf-8", "application/json-patch+json"} {
			res, body := f.callAs(t, "POST", "/api/p/v1/users/search", f.all, ct, `{"Page":0,"PageSize":5}`)
			if res.StatusCode != 200 {
				t.Fatalf("%s: %d %s", ct, res.StatusCode, body)
			}
		}
	})

	t.Run("not acceptable", func(t *testing.T) {
		for _, accept := range []string{"text/html", "application/xml;q=1, application/json;q=0"} {
			h := map[string]string{"Authorization": "Bearer " + f.all, "Accept": accept}
			res, body := testkit.Request(t, "GET", f.srv.URL+"/api/p/v1/trailers", h, "")
			wantProblem(t, res, body, http.StatusNotAcceptable)
		}
		for _, accept := range []string{"application/problem+json", "application/*", "*/*", "text/html, application/json;q=0.5"} {
			h := map[string]string{"Authorization": "Bearer " + f.all, "Accept": accept}
			if res, body := testkit.Request(t, "GET", f.srv.URL+"/api/p/v1/trailers", h, ""); res.StatusCode != 200 {
				t.Fatalf("Accept %q: %d %s", accept, res.StatusCode, body)
			}
		}
	})

	t.Run("body too large", func(t *testing.T) {
		big := `{"Page":0,"PageSize":5,"Keyword":"` + strings.Repeat("a", 1<<20) + `"}`
		res, body := f.call(t, "POST", "/api/p/v1/users/search", f.all, big)
		wantProblem(t, res, body, http.StatusRequestEntityTooLarge)
	})

	t.Run("not found", func(t *testing.T) {
		res, body := f.call(t, "GET", "/api/p/v1/invoices?invoiceNumber=INV-NOPE", f.all, "")
		wantProblem(t, res, body, http.StatusNotFound)
		res, body = f.call(t, "GET", "/api/p/v1/driver-settlement-statements/1", f.all, "")
		wantProblem(t, res, body, http.StatusNotFound)
	})

	t.Run("no or bad token", func(t *testing.T) {
		// RFC 6750 §3.1: no credentials → a challenge without an error code.
		res, body := f.call(t, "GET", "/api/p/v1/trailers", "", "")
		wantProblem(t, res, body, http.StatusUnauthorized)
		if wa := res.Header.Get("WWW-Authenticate"); wa != `Bearer realm="haulgraph"` {
			t.Fatalf("no token: WWW-Authenticate %q, want no error code", wa)
		}
		res, body = f.call(t, "GET", "/api/p/v1/trailers", "not-a-jwt", "")
		wantProblem(t, res, body, http.StatusUnauthorized)
		if !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), `Bearer error="invalid_token"`) {
			t.Fatalf("bad token: WWW-Authenticate %q", res.Header.Get("WWW-Authenticate"))
		}
	})
}
