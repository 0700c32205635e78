package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
	"github.com/haulgraph/haulgraph/testkit"
)

// fixture is one real instance with a seeded tenant; every call through it
// is also validated against the served OpenAPI document.
type fixture struct {
	srv    *apptest.Server
	seed   *seed.Result
	tenant apptest.Tenant
	oas    *openAPIChecker
	all    string // a token with every read scope the routes need
}

var readScopes = []domain.Scope{domain.ScopeInvoiceRead, domain.ScopeDriverRead, domain.ScopeTrailerRead,
	domain.ScopeCustomerRead, domain.ScopeUserRead, domain.ScopeLoadRead, domain.Scope("carrier:read"), domain.ScopeTripRead}

func newFixture(t *testing.T, opts apptest.Options) *fixture {
	t.Helper()
	var res *seed.Result
	if opts.DatabaseURL == "" {
		opts.DatabaseURL, res = seedtest.URL(t, seed.Options{Tenant: "acme", Scale: 1})
	}
	srv := apptest.Start(t, opts)
	if res == nil {
		var err error
		if res, err = seed.Run(context.Background(), srv.DB, seed.Options{Tenant: "acme", Scale: 1}); err != nil {
			t.Fatalf("seed: %v", err)
		}
	}
	f := &fixture{srv: srv, seed: res, tenant: apptest.Tenant{ID: res.TenantID, Slug: "acme", SubsidiaryID: res.SubsidiaryID}}
	f.oas = newOpenAPIChecker(t, srv.URL)
	f.all = srv.Token(t, f.tenant, readScopes...)
	return f
}

// call sends a request with token (none when "") and a JSON body (none when
// ""), checks the answer against the OpenAPI document and returns it.
func (f *fixture) call(t *testing.T, method, path, token, body string) (*http.Response, []byte) {
	t.Helper()
	ct := ""
	if body != "" {
		ct = "application/json"
	}
	return f.callAs(t, method, path, token, ct, body)
}

func (f *fixture) callAs(t *testing.T, method, path, token, contentType, body string) (*http.Response, []byte) {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	if contentType != "" {
		h["Content-Type"] = contentType
	}
	res, b := testkit.Request(t, method, f.srv.URL+path, h, body)
	f.oas.check(t, method, f.srv.URL+path, contentType, body, res, b)
	if res.StatusCode == http.StatusOK && body != "" {
		f.oas.checkRequest(t, method, f.srv.URL+path, contentType, body)
	}
	return res, b
}

// ok asserts a 200 application/json answer and decodes it into v.
func ok(t *testing.T, res *http.Response, body []byte, v any) {
	t.Helper()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("%s %s: status %d; body %s", res.Request.Method, res.Request.URL.Path, res.StatusCode, body)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q, want application/json", ct)
	}
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

// wantFieldError asserts a 400 problem naming field in errors.
func wantFieldError(t *testing.T, res *http.Response, body []byte, field string) {
	t.Helper()
	p := wantProblem(t, res, body, http.StatusBadRequest)
	if len(p.Errors[field]) == 0 {
		t.Fatalf("errors %v do not name %q; body %s", p.Errors, field, body)
	}
}

var versions = []string{"v1", "v1.0", "v2", "v2.0"}
