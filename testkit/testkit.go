// Package testkit holds what the project's tests share: a webhook receiver
// that answers the endpoint challenge and records deliveries, a GraphQL
// caller and the JSON and HTTP helpers. It imports nothing of the project
// (layering), so any package's tests, internal ones too, can use it without
// linking the application.
package testkit

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// MustJSON is v encoded; an encoding error fails the test.
func MustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding %T: %v", v, err)
	}
	return b
}

// Do sends req with http.DefaultClient and returns the response with its
// body read (and closed); a transport error fails the test.
func Do(t testing.TB, req *http.Request) (*http.Response, []byte) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", req.Method, req.URL, err)
	}
	return res, body
}

// Request sends one request: method and url, the headers, and body when
// not empty.
func Request(t testing.TB, method, url string, header map[string]string, body string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return Do(t, req)
}

// GraphQL POSTs one operation to base+"/graphql" as application/json,
// with the Bearer token when not empty, and returns the answer with its
// body.
func GraphQL(t testing.TB, base, token, query string, vars map[string]any) (*http.Response, []byte) {
	t.Helper()
	return PostGraphQL(t, base, token, "", MustJSON(t, map[string]any{"query": query, "variables": vars}))
}

// PostGraphQL POSTs body (a GraphQL request as JSON) to base+"/graphql",
// with accept as Accept when not empty and the Bearer token when not empty.
func PostGraphQL(t testing.TB, base, token, accept string, body []byte) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/graphql", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return Do(t, req)
}

// Decode unmarshals body into out; a body that is not its JSON fails the
// test, quoting res's status and the body.
func Decode(t testing.TB, res *http.Response, body []byte, out any) {
	t.Helper()
	if err := json.Unmarshal(body, out); err != nil {
		t.Fatalf("status %d, body %q: %v", res.StatusCode, body, err)
	}
}
