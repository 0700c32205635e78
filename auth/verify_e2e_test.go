package auth_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/testkit"
)

// claimsFor are valid claims for a token of tenant; tests spoil one of them.
func claimsFor(srv *apptest.Server, tenant apptest.Tenant) map[string]any {
	now := time.Now()
	return map[string]any{
		"iss": srv.URL, "sub": "hgc_test", "client_id": "hgc_test", "aud": srv.Config.Audience,
		"iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "j1",
		"tenant_id": tenant.ID.String(), "scope": "load:read",
	}
}

func with(m map[string]any, k string, v any) map[string]any {
	out := maps.Clone(m)
	if v == nil {
		delete(out, k)
	} else {
		out[k] = v
	}
	return out
}

// unsigned builds a compact JWS with an arbitrary header and signature part.
func unsigned(header, claims map[string]any, sig string) string {
	h, _ := json.Marshal(header)
	c, _ := json.Marshal(claims)
	return base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c) + "." + sig
}

// assertUnauthorized checks the 401 of docs/architecture.md: problem+json, and
// WWW-Authenticate: Bearer error="invalid_token" carrying the reason.
func assertUnauthorized(t *testing.T, resp *http.Response, body []byte, reasonPart string) {
	t.Helper()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("status %d, body %s", resp.StatusCode, body)
	}
	wa := resp.Header.Get("WWW-Authenticate")
	if !strings.HasPrefix(wa, `Bearer error="invalid_token"`) || !strings.Contains(wa, reasonPart) {
		t.Errorf("WWW-Authenticate = %q, want invalid_token mentioning %q", wa, reasonPart)
	}
	var p struct {
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	if resp.Header.Get("Content-Type") != "application/problem+json" || json.Unmarshal(body, &p) != nil || p.Status != 401 || !strings.Contains(p.Detail, reasonPart) {
		t.Errorf("body %s (%s), want problem+json 401 mentioning %q", body, resp.Header.Get("Content-Type"), reasonPart)
	}
}

func TestAPIRefusesBadBearerTokens(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	p := probe(t, srv)
	good := claimsFor(srv, acme)
	forge := func(claims any) string {
		tok, err := srv.Auth.SignWithActiveKey(ctx, claims)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	// The sanity check: the forged-but-valid token passes, so each case
	// below fails for the one thing it spoils.
	if resp, body := callProbe(t, p, forge(good), reads.OpReadLoad); resp.StatusCode != 200 {
		t.Fatalf("valid token refused: %d %s", resp.StatusCode, body)
	}

	otherKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	realKID := srv.Auth.ActiveKID(ctx)
	byOtherKey := func(kid string) string {
		tok, err := auth.SignWithKey(otherKey, kid, good)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	hs := func() string { // HS256 with a guessable key: algorithm confusion
		h, _ := json.Marshal(map[string]any{"alg": "HS256", "typ": "at+jwt", "kid": realKID})
		c, _ := json.Marshal(good)
		in := base64.RawURLEncoding.EncodeToString(h) + "." + base64.RawURLEncoding.EncodeToString(c)
		m := hmac.New(sha256.New, []byte(realKID))
		m.Write([]byte(in))
		return in + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}

	cases := []struct {
		name, header, reason string
	}{
		{"malformed token", "Bearer not-a-jwt", "malformed"},
		{"not a bearer scheme", "Basic dXNlcjpwYXNz", "malformed Authorization header"},
		{"empty bearer", "Bearer ", "malformed Authorization header"},
		{"expired", "Bearer " + forge(with(good, "exp", time.Now().Add(-time.Minute).Unix())), "expired"},
		{"wrong audience", "Bearer " + forge(with(good, "aud", "https://other.example")), "another audience"},
		{"wrong issuer", "Bearer " + forge(with(good, "iss", "https://evil.example")), "another issuer"},
		{"signed by an unknown key", "Bearer " + byOtherKey("unknown-kid"), "signature"},
		{"wrongly signed under the real kid", "Bearer " + byOtherKey(realKID), "signature"},
		{"alg none", "Bearer " + unsigned(map[string]any{"alg": "none", "typ": "at+jwt"}, good, ""), "algorithm"},
		{"alg HS256", "Bearer " + hs(), "algorithm"},
		{"typ is not at+jwt", "Bearer " + unsigned(map[string]any{"alg": "ES256", "typ": "JWT", "kid": realKID}, good, strings.Split(forge(good), ".")[2]), "typ"},
		{"no tenant", "Bearer " + forge(with(good, "tenant_id", nil)), "tenant_id"},
		{"audience as an array without ours", "Bearer " + forge(with(good, "aud", []string{"https://a.example", "https://b.example"})), "another audience"},
		// Token hygiene: only the compact form, NumericDates as
		// numbers, no iat from the future, no nil tenant.
		{"JSON-serialized JWS of a valid token", "Bearer " + jsonSerialized(forge(good)), "compact JWS"},
		{"exp as a string", "Bearer " + forge(with(good, "exp", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))), "exp claim must be a number"},
		{"iat as a string", "Bearer " + forge(with(good, "iat", strconv.FormatInt(time.Now().Unix(), 10))), "iat claim must be a number"},
		{"nbf as a string", "Bearer " + forge(with(good, "nbf", strconv.FormatInt(time.Now().Unix(), 10))), "nbf claim must be a number"},
		{"iat beyond the leeway in the future", "Bearer " + forge(with(good, "iat", time.Now().Add(10*time.Minute).Unix())), "iat is in the future"},
		{"nil tenant", "Bearer " + forge(with(good, "tenant_id", "00000000-0000-0000-0000-000000000000")), "tenant_id"},
		// An issuer's claims meet the token endpoint's rules: a client_id
		// the endpoint would refuse reaches no limiter, and a NumericDate
		// is a date (1e308 seconds converted to a time before the epoch).
		{"client_id with a NUL", "Bearer " + forge(with(good, "client_id", "hgc_\x00x")), "client_id"},
		{"sub with a control character and no client_id", "Bearer " + forge(with(with(good, "client_id", nil), "sub", "hgc\x1bx")), "client_id"},
		{"client_id longer than 128 bytes", "Bearer " + forge(with(good, "client_id", strings.Repeat("c", 129))), "client_id"},
		{"iat 1e308", "Bearer " + forge(with(good, "iat", 1e308)), "iat"},
		{"nbf 1e308", "Bearer " + forge(with(good, "nbf", 1e308)), "nbf"},
		{"iat negative", "Bearer " + forge(with(good, "iat", -1e18)), "iat"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, p+"?scope="+string(reads.OpReadLoad.Scope), nil)
			req.Header.Set("Authorization", tc.header)
			resp, body := testkit.Do(t, req)
			assertUnauthorized(t, resp, body, tc.reason)
		})
	}

	// RFC 6750 §3.1: a request without credentials is challenged without
	// an error code; the problem document still says what is missing.
	t.Run("missing token", func(t *testing.T) {
		resp, body := callProbe(t, p, "", reads.OpReadLoad)
		if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), "bearer token is required") {
			t.Fatalf("status %d %s", resp.StatusCode, body)
		}
		if wa := resp.Header.Get("WWW-Authenticate"); wa != `Bearer realm="haulgraph"` {
			t.Errorf("WWW-Authenticate = %q, want a challenge without error code", wa)
		}
	})
	// Within the leeway a slightly fast issuer clock is tolerated.
	if resp, body := callProbe(t, p, forge(with(good, "iat", time.Now().Add(time.Minute).Unix())), reads.OpReadLoad); resp.StatusCode != 200 {
		t.Errorf("iat one minute ahead refused: %d %s", resp.StatusCode, body)
	}
}

// jsonSerialized re-encodes a compact JWS in the flattened JSON
// serialization (RFC 7515 §7.2.2): the same signature over the same bytes.
func jsonSerialized(compact string) string {
	parts := strings.Split(compact, ".")
	b, _ := json.Marshal(map[string]string{"protected": parts[0], "payload": parts[1], "signature": parts[2]})
	return string(b)
}

func TestInsufficientScopeIs403NamingTheScope(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	tok := srv.Token(t, acme, domain.ScopeLoadRead)
	p := probe(t, srv)

	resp, body := callProbe(t, p, tok, reads.OpReadInvoice)
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("status %d %s", resp.StatusCode, body)
	}
	if wa := resp.Header.Get("WWW-Authenticate"); wa != `Bearer error="insufficient_scope", scope="invoice:read"` {
		t.Errorf("WWW-Authenticate = %q", wa)
	}
	if !strings.Contains(string(body), "invoice:read") || resp.Header.Get("Content-Type") != "application/problem+json" {
		t.Errorf("body %s", body)
	}
	// The same token passes where its scope suffices.
	if resp, body := callProbe(t, p, tok, reads.OpReadLoad); resp.StatusCode != 200 {
		t.Errorf("load:read refused: %d %s", resp.StatusCode, body)
	}
}
