package auth_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"golang.org/x/oauth2"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// assertOAuthError checks an RFC 6749 §5.2 error: status, error code,
// no-store, and WWW-Authenticate exactly when the status is 401.
func assertOAuthError(t *testing.T, resp *http.Response, m map[string]any, status int, code, descPart string) {
	t.Helper()
	if resp.StatusCode != status || m["error"] != code {
		t.Fatalf("got %d %v, want %d %s", resp.StatusCode, m, status, code)
	}
	if d, _ := m["error_description"].(string); !strings.Contains(d, descPart) {
		t.Errorf("error_description %q lacks %q", d, descPart)
	}
	if resp.Header.Get("Cache-Control") != "no-store" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") {
		t.Errorf("headers %v", resp.Header)
	}
	wa := resp.Header.Get("WWW-Authenticate")
	if (status == 401) != strings.HasPrefix(wa, "Basic ") {
		t.Errorf("status %d with WWW-Authenticate %q", status, wa)
	}
}

func TestTokenRequestErrors(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	id, secret := srv.Client(t, acme, domain.ScopeLoadRead)
	valid := map[string]string{"client_id": id, "client_secret": secret, "audience": srv.Config.Audience, "grant_type": "client_credentials"}
	spoil := func(k, v string) map[string]string {
		m := map[string]string{}
		for a, b := range valid {
			m[a] = b
		}
		if v == "" {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	cases := []struct {
		name   string
		fields map[string]string
		status int
		code   string
		desc   string
	}{
		{"wrong secret", spoil("client_secret", "hgcs_wrong"), 401, "invalid_client", "client authentication failed"},
		{"unknown client", spoil("client_id", "hgc_nobody"), 401, "invalid_client", "client authentication failed"},
		{"missing client_secret", spoil("client_secret", ""), 400, "invalid_request", "client_secret"},
		{"missing client_id", spoil("client_id", ""), 400, "invalid_request", "client_id"},
		{"missing audience", spoil("audience", ""), 400, "invalid_request", "audience is required"},
		{"wrong audience", spoil("audience", "https://other.example"), 400, "invalid_request", "audience must be " + srv.Config.Audience},
		{"missing grant_type", spoil("grant_type", ""), 400, "invalid_request", "grant_type"},
		{"other grant_type", spoil("grant_type", "password"), 400, "unsupported_grant_type", "client_credentials"},
		{"scope not granted", spoil("scope", "load:read invoice:read"), 403, "access_denied", "invoice:read"},
	}
	for _, tc := range cases {
		for _, asJSON := range []bool{true, false} {
			name := tc.name + map[bool]string{true: " (json)", false: " (form)"}[asJSON]
			t.Run(name, func(t *testing.T) {
				resp, m := postToken(t, srv, asJSON, tc.fields)
				assertOAuthError(t, resp, m, tc.status, tc.code, tc.desc)
			})
		}
	}

	t.Run("unsupported content types are 415", func(t *testing.T) {
		for _, ct := range []string{"text/plain", "multipart/form-data; boundary=x", "application/xml", ""} {
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/oauth/token", strings.NewReader("client_id="+id))
			if ct != "" {
				req.Header.Set("Content-Type", ct)
			}
			resp, m := postRaw(t, req)
			assertOAuthError(t, resp, m, 415, "invalid_request", "Content-Type")
		}
	})
	t.Run("malformed JSON", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/oauth/token", strings.NewReader(`{"client_id": 5}`))
		req.Header.Set("Content-Type", "application/json")
		resp, m := postRaw(t, req)
		assertOAuthError(t, resp, m, 400, "invalid_request", "JSON")
	})
	t.Run("oversized body", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/oauth/token", strings.NewReader("scope="+strings.Repeat("a", 20<<10)))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, m := postRaw(t, req)
		assertOAuthError(t, resp, m, 413, "invalid_request", "bytes")
	})
	t.Run("JSON with a repeated key", func(t *testing.T) {
		// Which client_id counts would depend on the parser: refused, as the form is.
		body := `{"grant_type":"client_credentials","audience":"` + srv.Config.Audience + `","client_id":"hgc_other","client_secret":"` + secret + `","client_id":"` + id + `"}`
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/oauth/token", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		resp, m := postRaw(t, req)
		assertOAuthError(t, resp, m, 400, "invalid_request", `"client_id" is repeated`)
	})
	t.Run("two JSON objects", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/oauth/token", strings.NewReader(`{"client_id":"a"} {"client_id":"b"}`))
		req.Header.Set("Content-Type", "application/json")
		resp, m := postRaw(t, req)
		assertOAuthError(t, resp, m, 400, "invalid_request", "exactly one JSON object")
	})
	t.Run("GET is a JSON 405", func(t *testing.T) {
		for _, path := range []string{"/oauth/token", "/oauth/revoke"} {
			req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
			resp, m := postRaw(t, req)
			assertOAuthError(t, resp, m, 405, "invalid_request", "POST")
			if resp.Header.Get("Allow") != "POST" {
				t.Errorf("%s: Allow %q", path, resp.Header.Get("Allow"))
			}
		}
	})
	t.Run("HTTP Basic and a body secret together", func(t *testing.T) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/oauth/token", strings.NewReader("grant_type=client_credentials&audience="+srv.Config.Audience+"&client_secret="+secret))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(id, secret)
		resp, m := postRaw(t, req)
		assertOAuthError(t, resp, m, 400, "invalid_request", "not both")
	})
}

func TestClientSecretBasic(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	id, secret := srv.Client(t, acme, domain.ScopeLoadRead)

	cfg := srv.OAuth(id, secret)
	cfg.AuthStyle = oauth2.AuthStyleInHeader
	tok, err := cfg.Token(context.Background())
	if err != nil {
		t.Fatalf("client_secret_basic: %v", err)
	}
	if c := verifyWithDiscovery(t, srv, tok.AccessToken); c.Sub != id || c.Scope != "load:read" {
		t.Errorf("claims %+v", c)
	}

	cfg = srv.OAuth(id, "hgcs_wrong")
	cfg.AuthStyle = oauth2.AuthStyleInHeader
	_, err = cfg.Token(context.Background())
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.Response.StatusCode != 401 || re.ErrorCode != "invalid_client" ||
		!strings.HasPrefix(re.Response.Header.Get("WWW-Authenticate"), "Basic ") {
		t.Fatalf("wrong secret over Basic: %v", err)
	}
}

// TestInactiveClientsGetNoToken: a revoked or expired client is refused
// with 401 invalid_client, saying why (docs/api-contract.md §5.5's checklist).
func TestInactiveClientsGetNoToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")

	revokedID, revokedSecret := srv.Client(t, acme, domain.ScopeLoadRead)
	if _, err := srv.OAuth(revokedID, revokedSecret).Token(ctx); err != nil {
		t.Fatalf("before revocation: %v", err)
	}
	if err := srv.Auth.RevokeClient(ctx, acme.ID, revokedID); err != nil {
		t.Fatal(err)
	}

	expiredID, expiredSecret := srv.Client(t, acme, domain.ScopeLoadRead)
	if _, err := srv.OAuth(expiredID, expiredSecret).Token(ctx); err != nil {
		t.Fatalf("before expiry: %v", err)
	}
	// Let the expiry date pass: move it into the past.
	if err := srv.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "UPDATE api_clients SET expires_at = now() - interval '1 minute' WHERE client_id = ?", expiredID)
		return err
	}); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct{ id, secret, why string }{{revokedID, revokedSecret, "revoked"}, {expiredID, expiredSecret, "expired"}} {
		_, err := srv.OAuth(c.id, c.secret).Token(ctx)
		var re *oauth2.RetrieveError
		if !errors.As(err, &re) || re.Response.StatusCode != 401 || re.ErrorCode != "invalid_client" || !strings.Contains(re.ErrorDescription, c.why) {
			t.Errorf("%s client: %v", c.why, err)
		}
	}
	// Revoking twice, or another tenant's client, finds nothing.
	other := apptest.NewTenant(t, srv, "other")
	liveID, _ := srv.Client(t, acme, domain.ScopeLoadRead)
	for _, tc := range []struct {
		tenant uuid.UUID
		id     string
	}{{acme.ID, revokedID}, {other.ID, liveID}} {
		if err := srv.Auth.RevokeClient(ctx, tc.tenant, tc.id); domain.CodeOf(err) != domain.CodeNotFound {
			t.Errorf("revoke %s: %v", tc.id, err)
		}
	}
}
