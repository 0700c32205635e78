package rest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/testkit"
)

// openAPIChecker validates live exchanges against the served document with
// kin-openapi's openapi3filter, which validates OpenAPI 3.1 documents with
// its JSON Schema 2020-12 validator.
type openAPIChecker struct {
	doc    *openapi3.T
	router routers.Router
}

func newOpenAPIChecker(t *testing.T, base string) *openAPIChecker {
	t.Helper()
	_, b, err := rest.OpenAPI()
	if err != nil {
		t.Fatal(err)
	}
	// Validate the document exactly as served, not the in-memory one.
	res, served := testkit.Request(t, "GET", base+"/api/p/openapi.json", nil, "")
	if res.StatusCode != 200 || !bytes.Equal(served, b) {
		t.Fatalf("served document differs from rest.OpenAPI()")
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(served)
	if err != nil {
		t.Fatal(err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("document is OpenAPI %s, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("document invalid: %v", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &openAPIChecker{doc: doc, router: router}
}

// check asserts that the request is one the document describes and that the
// response matches the document's answer for it (status, media type, body).
func (c *openAPIChecker) check(t *testing.T, method, rawURL, contentType, reqBody string, res *http.Response, resBody []byte) {
	t.Helper()
	u, err := url.Parse(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Scheme, u.Host = "", "" // the document's server is "/"
	canonicalVersion(u)
	req, err := http.NewRequest(method, u.String(), bytes.NewReader([]byte(reqBody)))
	if err != nil {
		t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s %s: not in the OpenAPI document: %v", method, u, err)
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 res.StatusCode,
		Header:                 res.Header,
		Body:                   io.NopCloser(bytes.NewReader(resBody)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		t.Fatalf("%s %s → %d does not match the OpenAPI document: %v\nbody: %s", method, u, res.StatusCode, err, resBody)
	}
}

// checkRequest asserts that a request body the server accepted is valid
// according to the document too.
func (c *openAPIChecker) checkRequest(t *testing.T, method, rawURL, contentType, reqBody string) {
	t.Helper()
	u, _ := url.Parse(rawURL)
	u.Scheme, u.Host = "", ""
	canonicalVersion(u)
	req, _ := http.NewRequest(method, u.String(), bytes.NewReader([]byte(reqBody)))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s %s: not in the OpenAPI document: %v", method, u, err)
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
		t.Fatalf("%s %s: the request is valid for the server but not for the document: %v", method, u, err)
	}
}

// canonicalVersion rewrites the version segment to the v1 of the
// document's paths: v1.0, v2 and v2.0 are the same routes, as the document
// says, and any other version is the 404 every operation declares.
func canonicalVersion(u *url.URL) {
	tail, ok := strings.CutPrefix(u.Path, rest.Prefix+"v")
	if !ok {
		return
	}
	if _, after, ok := strings.Cut(tail, "/"); ok {
		u.Path = rest.Prefix + "v1/" + after
	}
}

// Problem answers, which need no data, match the document on every route.
func TestOpenAPIProblemsMatch(t *testing.T) {
	t.Parallel()
	srv := startServer(t)
	c := newOpenAPIChecker(t, srv.URL)
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/api/p/v1/invoices?id=x", ""},
		{"POST", "/api/p/v1/driver-settlement-statements/search", `{}`},
		{"GET", "/api/p/v1.0/driver-settlement-statements/12", ""},
		{"GET", "/api/p/v2/trailers", ""},
		{"POST", "/api/p/v2.0/locations/search", `{"PageSize":1}`},
		{"POST", "/api/p/v1/users/search", `{"Page":0,"PageSize":1}`},
		{"GET", "/api/p/v1/loads/L-1", ""},
		{"GET", "/api/p/v1/webhooks/event-types", ""},
	} {
		ct := ""
		if r.body != "" {
			ct = "application/json"
		}
		res, body := testkit.Request(t, r.method, srv.URL+r.path, map[string]string{"Content-Type": ct}, r.body)
		wantProblem(t, res, body, http.StatusUnauthorized)
		c.check(t, r.method, srv.URL+r.path, ct, r.body, res, body)
	}
}
