package apptest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
)

// Hostile input is refused with the exact 4xx in each transport's
// error format, and the server never answers (or logs) a 5xx.

// format is how a refusal must look.
type format int

const (
	problemJSON   format = iota // REST: application/problem+json, errors naming want
	graphQL                     // GraphQL: errors[0].extensions.code == want
	graphQLNoData               // the same, refused before execution: no "data" key
	oauthJSON                   // token endpoint: {"error": want}
)

type hostile struct {
	name   string
	method string
	path   string
	header map[string]string // Authorization is added unless set ("-" removes it)
	body   string
	status int
	format format
	want   string // the problem's field, the GraphQL code or the OAuth error
	allow  string // the Allow header a 405 must carry
}

// env is one instance with seeded data and a token holding every scope the
// cases need.
type env struct {
	srv      *apptest.Server
	token    string
	load     string // a load number
	loadID   string
	sub      string // a subsidiary id
	log      *syncBuffer
	clientID string
	secret   string
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func startEnv(t *testing.T) *env {
	t.Helper()
	e := &env{log: &syncBuffer{}}
	url, res := seedtest.URL(t, seed.Options{Tenant: "acme", Scale: 1})
	e.srv = apptest.Start(t, apptest.Options{DatabaseURL: url, Log: e.log})
	tn := apptest.Tenant{ID: res.TenantID, Slug: "acme", SubsidiaryID: res.SubsidiaryID}
	scopes := []domain.Scope{domain.ScopeInvoiceRead, domain.ScopeDriverRead, domain.ScopeTrailerRead, domain.ScopeCustomerRead,
		domain.ScopeUserRead, domain.ScopeLoadRead, domain.Scope("load:create"), domain.Scope("load:update"),
		domain.Scope("webhook:manage"), domain.ScopeTripRead}
	e.token = e.srv.Token(t, tn, scopes...)
	e.clientID, e.secret = e.srv.Client(t, tn, domain.ScopeLoadRead)
	e.load, e.sub = res.LoadWithTrips, res.SubsidiaryID.String()
	var got struct {
		Data struct{ Load struct{ ID string } } `json:"data"`
	}
	_, b := e.send(t, hostile{method: "POST", path: "/graphql", body: gqlBody(`query($n:String!){load(loadNumber:$n){id}}`, map[string]any{"n": e.load})})
	if err := json.Unmarshal(b, &got); err != nil || got.Data.Load.ID == "" {
		t.Fatalf("load id: %s", b)
	}
	e.loadID = got.Data.Load.ID
	return e
}

func (e *env) send(t *testing.T, c hostile) (*http.Response, []byte) {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, e.srv.URL+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+e.token)
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range c.header {
		if v == "-" {
			req.Header.Del(k)
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, b
}

func (c hostile) check(t *testing.T, res *http.Response, b []byte) {
	t.Helper()
	if res.StatusCode != c.status {
		t.Fatalf("status %d, want %d; body %.500s", res.StatusCode, c.status, b)
	}
	if c.allow != "" && res.Header.Get("Allow") != c.allow {
		t.Fatalf("Allow %q, want %q", res.Header.Get("Allow"), c.allow)
	}
	ct := res.Header.Get("Content-Type")
	switch c.format {
	case problemJSON:
		var p struct {
			Status int                 `json:"status"`
			Title  string              `json:"title"`
			Errors map[string][]string `json:"errors"`
		}
		if ct != "application/problem+json" || json.Unmarshal(b, &p) != nil || p.Status != c.status || p.Title == "" {
			t.Fatalf("not a problem document (%s): %s", ct, b)
		}
		if c.want != "" && len(p.Errors[c.want]) == 0 {
			t.Fatalf("errors do not name %q: %s", c.want, b)
		}
	case graphQL, graphQLNoData:
		var r struct {
			Errors []struct {
				Message    string         `json:"message"`
				Extensions map[string]any `json:"extensions"`
			} `json:"errors"`
		}
		if !strings.HasPrefix(ct, "application/json") && !strings.HasPrefix(ct, "application/graphql-response+json") {
			t.Fatalf("Content-Type %q; body %s", ct, b)
		}
		if err := json.Unmarshal(b, &r); err != nil || len(r.Errors) == 0 {
			t.Fatalf("no GraphQL errors: %s", b)
		}
		if code := r.Errors[0].Extensions["code"]; code != c.want {
			t.Fatalf("extensions.code %v, want %s: %s", code, c.want, b)
		}
		var raw map[string]json.RawMessage
		_ = json.Unmarshal(b, &raw)
		if _, has := raw["data"]; has && c.format == graphQLNoData {
			t.Fatalf("a request refused before execution carries data: %s", b)
		}
	case oauthJSON:
		var o struct {
			Error string `json:"error"`
		}
		if !strings.HasPrefix(ct, "application/json") || json.Unmarshal(b, &o) != nil || o.Error != c.want {
			t.Fatalf("want OAuth error %q: %s %s", c.want, ct, b)
		}
	}
}

func gqlBody(query string, vars map[string]any) string {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return string(b)
}

// multipartBody is a raw multipart/form-data body with boundary "B".
func multipartBody(parts ...string) string {
	var sb strings.Builder
	for _, p := range parts {
		sb.WriteString("--B\r\n" + p + "\r\n")
	}
	sb.WriteString("--B--\r\n")
	return sb.String()
}

func formField(name, value string) string {
	return `Content-Disposition: form-data; name="` + name + `"` + "\r\n\r\n" + value
}

const pdf = "%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"

func formFile(name, filename string) string {
	return `Content-Disposition: form-data; name="` + name + `"; filename="` + filename + `"` + "\r\nContent-Type: application/pdf\r\n\r\n" + pdf
}

var multipartCT = map[string]string{"Content-Type": "multipart/form-data; boundary=B"}

func TestHostileInput(t *testing.T) {
	e := startEnv(t)
	cases := append(append(append(restCases(e), graphQLCases(e)...), tokenCases(e)...), uploadCases(e)...)
	ws := wsCases()
	if len(cases)+len(ws) < 100 {
		t.Errorf("only %d hostile cases", len(cases)+len(ws))
	}
	// What the catalogue may cost the server, all cases together: each is
	// refused before any real work, so the whole run stays small, and
	// nothing it opened (sockets, PostgreSQL connections) outlives it.
	const maxAlloc, maxPeakGrowth = 128 << 20, 64 << 20 // allocated: about 31 MiB
	apptest.ResetPeakRSS(t)
	before := apptest.ReadUsage(t)
	t.Run("cases", func(t *testing.T) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				res, b := e.send(t, c)
				c.check(t, res, b)
			})
		}
		for _, c := range ws {
			t.Run("WebSocket "+c.name, func(t *testing.T) {
				t.Parallel()
				runWSCase(t, e, c)
			})
		}
	})
	after := apptest.ReadUsage(t)
	if alloc := after.Allocated - before.Allocated; alloc > maxAlloc {
		t.Errorf("the catalogue allocated %d MiB (client included), want < %d MiB", alloc>>20, maxAlloc>>20)
	}
	if grew := after.PeakRSS - before.RSS; grew > maxPeakGrowth {
		t.Errorf("peak RSS grew %d MiB over the catalogue, want < %d MiB", grew>>20, maxPeakGrowth>>20)
	}
	t.Logf("catalogue of %d cases: CPU %v, allocated %d MiB, peak RSS +%d MiB, fds %d → %d", len(cases)+len(ws),
		after.CPU-before.CPU, (after.Allocated-before.Allocated)>>20, (after.PeakRSS-before.RSS)>>20, before.FDs, after.FDs)
	waitFor(t, 10*time.Second, "no PostgreSQL connection left busy", func() bool { return e.srv.BusyBackends(t) == 0 })
	for _, line := range strings.Split(e.log.String(), "\n") {
		if strings.Contains(line, "status=5") || strings.Contains(line, "internal error") || strings.Contains(line, "panic") {
			t.Errorf("server log shows a 5xx: %s", line)
		}
	}
}

func restCases(e *env) []hostile {
	const p = "/api/p/v1"
	get := func(name, path string, status int, field string) hostile {
		return hostile{name: "REST " + name, method: "GET", path: p + path, status: status, format: problemJSON, want: field}
	}
	post := func(name, path, body string, status int, field string) hostile {
		return hostile{name: "REST " + name, method: "POST", path: p + path, body: body, status: status, format: problemJSON, want: field}
	}
	users := func(name, body, field string) hostile { return post("users "+name, "/users/search", body, 400, field) }
	locs := func(name, body, field string) hostile {
		return post("locations "+name, "/locations/search", body, 400, field)
	}
	stmts := func(name, start, end, field string) hostile {
		return post("statements "+name, "/driver-settlement-statements/search",
			`{"Page":0,"PageSize":10,"StatementDateRange":{"Start":"`+start+`","End":"`+end+`"}}`, 400, field)
	}
	const day = "2025-01-01T00:00:00Z"
	return []hostile{
		get("invoiceNumber NUL", "/invoices?invoiceNumber=%00", 400, "invoiceNumber"),
		get("invoiceNumber NUL inside", "/invoices?invoiceNumber=INV%001", 400, "invoiceNumber"),
		get("invoiceNumber ESC", "/invoices?invoiceNumber=%1B%5B0m", 400, "invoiceNumber"),
		get("invoiceNumber invalid UTF-8", "/invoices?invoiceNumber=%FF%FE", 400, "invoiceNumber"),
		get("invoiceNumber C1 control", "/invoices?invoiceNumber=%C2%85", 400, "invoiceNumber"),
		get("invoice id NUL", "/invoices?id=%00", 400, "id"),
		get("invoice id not a UUID", "/invoices?id=42", 400, "id"),
		get("invoice id and number", "/invoices?id=1&invoiceNumber=2", 400, "id"),
		get("invoice without key", "/invoices", 400, "id"),
		get("query parameter name NUL", "/invoices?%00=1", 400, "query parameter name"),
		get("load number NUL", "/loads/%00", 400, "loadNumber"),
		get("load number NUL suffix", "/loads/L-1%00", 400, "loadNumber"),
		get("load number BEL", "/loads/a%07b", 400, "loadNumber"),
		get("load number invalid UTF-8", "/loads/%C3", 400, "loadNumber"),
		get("load number too long", "/loads/"+strings.Repeat("x", 65), 400, "loadNumber"),
		get("load not found", "/loads/NO-SUCH-LOAD", 404, ""),
		get("statement number NUL", "/driver-settlement-statements/%00", 400, "number"),
		get("statement number not a number", "/driver-settlement-statements/abc", 400, "number"),
		get("statement number overflow", "/driver-settlement-statements/99999999999", 400, "number"),
		get("trailers after NUL", "/trailers?after=%00", 400, "after"),
		get("trailers limit NUL", "/trailers?limit=%00", 400, "limit"),
		get("trailers limit zero", "/trailers?limit=0", 400, "limit"),
		get("trailers limit huge", "/trailers?limit=1001", 400, "limit"),
		get("trailers forged cursor", "/trailers?after=forged", 400, ""),
		{name: "REST version v3", method: "GET", path: "/api/p/v3/trailers", status: 404, format: problemJSON},
		{name: "REST version v1.1", method: "GET", path: "/api/p/v1.1/trailers", status: 404, format: problemJSON},
		{name: "REST version NUL", method: "GET", path: "/api/p/v%00/trailers", status: 404, format: problemJSON},
		{name: "REST no such route", method: "GET", path: p + "/nothing", status: 404, format: problemJSON},
		{name: "REST PUT invoices", method: "PUT", path: p + "/invoices", status: 405, format: problemJSON},
		{name: "REST Accept text/html", method: "GET", path: p + "/trailers", header: map[string]string{"Accept": "text/html"}, status: 406, format: problemJSON},
		{name: "REST no token", method: "GET", path: p + "/trailers", header: map[string]string{"Authorization": "-"}, status: 401, format: problemJSON},
		{name: "REST garbage token", method: "GET", path: p + "/trailers", header: map[string]string{"Authorization": "Bearer not-a-jwt"}, status: 401, format: problemJSON},
		{name: "REST token NUL", method: "GET", path: p + "/trailers", header: map[string]string{"Authorization": "Bearer a.b.c"}, status: 401, format: problemJSON},
		users("Keyword NUL", `{"Page":0,"PageSize":10,"Keyword":"\u0000"}`, "Keyword"),
		users("Keyword NUL inside", `{"Page":0,"PageSize":10,"Keyword":"ab\u0000cd"}`, "Keyword"),
		users("Keyword ESC", `{"Page":0,"PageSize":10,"Keyword":"\u001b"}`, "Keyword"),
		users("Keyword DEL", `{"Page":0,"PageSize":10,"Keyword":"x\u007f"}`, "Keyword"),
		users("Keyword C1", `{"Page":0,"PageSize":10,"Keyword":"\u009b"}`, "Keyword"),
		users("Keyword too long", `{"Page":0,"PageSize":10,"Keyword":"`+strings.Repeat("k", 201)+`"}`, "Keyword"),
		users("Keyword number", `{"Page":0,"PageSize":10,"Keyword":5}`, "Keyword"),
		users("unknown field", `{"Page":0,"PageSize":10,"Keyw0rd":"x"}`, "Keyw0rd"),
		users("Page negative", `{"Page":-1,"PageSize":10}`, "Page"),
		users("PageSize zero", `{"Page":0,"PageSize":0}`, "PageSize"),
		users("PageSize 101", `{"Page":0,"PageSize":101}`, "PageSize"),
		users("Page overflow", `{"Page":2147483647,"PageSize":100}`, "Page"),
		users("Page beyond int64", `{"Page":99999999999999999999,"PageSize":10}`, "Page"),
		users("malformed JSON", `{"Page":0,`, "body"),
		users("trailing data", `{"Page":0,"PageSize":1}{}`, "body"),
		users("array body", `[]`, "body"),
		users("null body", `null`, "Page"),
		{name: "REST users text/plain", method: "POST", path: p + "/users/search", body: `{}`, header: map[string]string{"Content-Type": "text/plain"}, status: 415, format: problemJSON},
		{name: "REST users body too large", method: "POST", path: p + "/users/search", body: `{"Keyword":"` + strings.Repeat("a", 1<<20) + `"}`, status: 413, format: problemJSON},
		{name: "REST users form body", method: "POST", path: p + "/users/search", body: "Keyword=x", header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, status: 415, format: problemJSON},
		locs("Status NUL", `{"PageSize":10,"Status":["\u0000"]}`, "Status[0]"),
		locs("LocationIds NUL", `{"PageSize":10,"LocationIds":["\u0000"]}`, "LocationIds[0]"),
		locs("LocationIds not UUIDs", `{"PageSize":10,"LocationIds":["x"]}`, "LocationIds"),
		locs("CreatedDateRange year 0", `{"PageSize":10,"CreatedDateRange":{"Start":"0000-01-01T00:00:00Z"}}`, "CreatedDateRange.Start"),
		locs("CreatedDateRange bare date", `{"PageSize":10,"CreatedDateRange":{"Start":"2025-01-01"}}`, "CreatedDateRange.Start"),
		locs("CreatedDateRange no offset", `{"PageSize":10,"CreatedDateRange":{"End":"2025-01-01T00:00:00"}}`, "CreatedDateRange.End"),
		locs("CreatedDateRange NUL", `{"PageSize":10,"CreatedDateRange":{"End":"\u0000"}}`, "CreatedDateRange.End"),
		stmts("Start year 0", "0000-01-01T00:00:00Z", day, "StatementDateRange.Start"),
		stmts("End year 0", day, "0000-01-01T00:00:00Z", "StatementDateRange.End"),
		stmts("Start 1899", "1899-12-31T00:00:00Z", day, "StatementDateRange.Start"),
		stmts("End year 10000", day, "10000-01-01T00:00:00Z", "StatementDateRange.End"),
		stmts("Start bare date", "2025-01-01", day, "StatementDateRange.Start"),
		stmts("End without offset", day, "2025-01-31T00:00:00", "StatementDateRange.End"),
		stmts("Start NUL", "\\u0000", day, "StatementDateRange.Start"),
		post("statements DriverType NUL", "/driver-settlement-statements/search",
			`{"Page":0,"PageSize":10,"DriverType":"\u0000","StatementDateRange":{"Start":"`+day+`","End":"`+day+`"}}`, 400, "DriverType"),
		post("statements DriverId NUL", "/driver-settlement-statements/search",
			`{"Page":0,"PageSize":10,"DriverId":"\u0000","StatementDateRange":{"Start":"`+day+`","End":"`+day+`"}}`, 400, "DriverId"),
		post("statements range object wrong", "/driver-settlement-statements/search",
			`{"Page":0,"PageSize":10,"StatementDateRange":"2025"}`, 400, "StatementDateRange"),
	}
}

func waitFor(t *testing.T, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %v: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
