package auth_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/testkit"
)

// probe serves the real auth middleware in front of a handler that asks
// domain.AuthorizeScope for the operation's scope sent as ?scope= and answers with the
// principal or with rest.WriteError, exactly as API handlers do.
func probe(t *testing.T, srv *apptest.Server) string {
	t.Helper()
	h := srv.Auth.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, err := domain.AuthorizeScope(r.Context(), domain.Scope(r.URL.Query().Get("scope")))
		if err != nil {
			rest.WriteError(w, r, err)
			return
		}
		rest.WriteJSON(w, http.StatusOK, p)
	}))
	ps := httptest.NewServer(h)
	t.Cleanup(ps.Close)
	return ps.URL
}

// callProbe calls the probe with token (none when empty) for op.
func callProbe(t *testing.T, probeURL, token string, op domain.Operation) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, probeURL+"?scope="+url.QueryEscape(string(op.Scope)), nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return testkit.Do(t, req)
}

// postToken posts fields to the token endpoint as JSON or as a form.
func postToken(t *testing.T, srv *apptest.Server, asJSON bool, fields map[string]string) (*http.Response, map[string]any) {
	t.Helper()
	var body io.Reader
	ct := "application/x-www-form-urlencoded"
	if asJSON {
		b, _ := json.Marshal(fields)
		body, ct = bytes.NewReader(b), "application/json"
	} else {
		v := url.Values{}
		for k, f := range fields {
			v.Set(k, f)
		}
		body = strings.NewReader(v.Encode())
	}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/oauth/token", body)
	req.Header.Set("Content-Type", ct)
	return postRaw(t, req)
}

func postRaw(t *testing.T, req *http.Request) (*http.Response, map[string]any) {
	t.Helper()
	resp, raw := testkit.Do(t, req)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("token endpoint answered %d with non-JSON %q", resp.StatusCode, raw)
	}
	return resp, m
}
