package auth_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// tokenBodyLimit is the token endpoints' body bound: 16 KiB.
const tokenBodyLimit = 16 << 10

// padded is a token request body of exactly n bytes, as JSON or as a form:
// well-formed credentials (a wrong secret), a token (for revocation) and a
// member no endpoint reads that fills the rest (every field has a bound of
// its own well below the body's).
func padded(t *testing.T, n int, asJSON bool, id, audience, pad string) string {
	t.Helper()
	var head, tail string
	if asJSON {
		head = `{"grant_type":"client_credentials","client_id":"` + id + `","client_secret":"hgcs_wrong","audience":"` + audience + `","token":"x","` + pad + `":"`
		tail = `"}`
	} else {
		head = "grant_type=client_credentials&client_id=" + id + "&client_secret=hgcs_wrong&audience=" + audience + "&token=x&" + pad + "="
	}
	body := head + strings.Repeat("a", n-len(head)-len(tail)) + tail
	if len(body) != n {
		t.Fatalf("body of %d bytes, want %d", len(body), n)
	}
	return body
}

// The token endpoints' body bound is 413, everywhere it is stated: a body
// of 16 KiB + 1 byte is refused 413 invalid_request on /oauth/token (JSON
// and form) and /oauth/revoke, one of 16 KiB is read (the wrong secret is
// 401); the served OpenAPI document declares 413 for both operations and
// docs/security.md's table of fixed bounds says 413.
func TestTokenBodyBoundIs413(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	id, _ := srv.Client(t, tn, domain.ScopeLoadRead)
	for _, path := range []string{"/oauth/token", "/oauth/revoke"} {
		pad := "padding"
		for _, asJSON := range []bool{true, false} {
			ct := map[bool]string{true: "application/json", false: "application/x-www-form-urlencoded"}[asJSON]
			for _, n := range []int{tokenBodyLimit, tokenBodyLimit + 1} {
				req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(padded(t, n, asJSON, id, srv.Config.Audience, pad)))
				req.Header.Set("Content-Type", ct)
				resp, m := postRaw(t, req)
				if n > tokenBodyLimit {
					assertOAuthError(t, resp, m, http.StatusRequestEntityTooLarge, "invalid_request", "16384 bytes")
				} else if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("%s %s, %d bytes: %d %v, want 401 (read, the secret is wrong)", path, ct, n, resp.StatusCode, m)
				}
			}
		}
	}

	resp, raw := testkit.Do(t, mustRequest(t, srv.URL+"/api/p/openapi.json"))
	var doc struct {
		Paths map[string]struct {
			Post struct {
				Responses map[string]json.RawMessage `json:"responses"`
			} `json:"post"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || resp.StatusCode != 200 {
		t.Fatalf("openapi.json: %d %v", resp.StatusCode, err)
	}
	for _, path := range []string{"/oauth/token", "/oauth/revoke"} {
		if _, ok := doc.Paths[path].Post.Responses["413"]; !ok {
			t.Errorf("the OpenAPI document declares no 413 for POST %s", path)
		}
	}

	security, err := os.ReadFile("../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	row := ""
	for _, line := range strings.Split(string(security), "\n") {
		if strings.HasPrefix(line, "| token endpoint body |") {
			row = line
		}
	}
	if !strings.Contains(row, "16 KiB") || !strings.Contains(row, "413") || strings.Contains(row, "400") {
		t.Errorf("docs/security.md states the token endpoint's body bound as %q, want 16 KiB and 413", row)
	}
}

func mustRequest(t *testing.T, url string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// Each field of a token or revocation request has a bound of its own
// (domain.OAuthFields, the document's maxLength): one character past it is
// a 400 invalid_request naming the field, on both endpoints and in both
// encodings; at the bound the request is read (the wrong secret is 401).
func TestTokenFieldBounds(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	id, _ := srv.Client(t, tn, domain.ScopeLoadRead)
	for _, f := range domain.OAuthFields {
		for _, n := range []int{f.MaxLength, f.MaxLength + 1} {
			fields := url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {"hgcs_wrong"},
				"audience": {srv.Config.Audience}, "token": {"x"}}
			fields.Set(f.Name, strings.Repeat("a", n))
			if f.Name == "audience" && n == f.MaxLength {
				continue // any audience but the server's is refused as wrong
			}
			for _, path := range []string{"/oauth/token", "/oauth/revoke"} {
				req, _ := http.NewRequest(http.MethodPost, srv.URL+path, strings.NewReader(fields.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				resp, m := postRaw(t, req)
				if n > f.MaxLength {
					assertOAuthError(t, resp, m, http.StatusBadRequest, "invalid_request", fmt.Sprintf("%s must be at most %d characters", f.Name, f.MaxLength))
				} else if resp.StatusCode != http.StatusUnauthorized {
					t.Errorf("%s with %s of %d characters: %d %v, want 401 (read, the secret is wrong)", path, f.Name, n, resp.StatusCode, m)
				}
			}
		}
	}
}
