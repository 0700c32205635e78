package auth_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// legacyToken posts client credentials to the legacy route of tenant.
func legacyToken(t *testing.T, srv *apptest.Server, tenantID, id, secret string) (*http.Response, map[string]any) {
	t.Helper()
	form := url.Values{"client_id": {id}, "client_secret": {secret}, "audience": {srv.Config.Audience}, "grant_type": {"client_credentials"}}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/authentication/"+tenantID+"/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return postRaw(t, req)
}

func TestLegacyTokensActAsAllReadScopesBeforeTheCutoff(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { c.LegacyCutoff = time.Now().Add(24 * time.Hour) }})
	acme := apptest.NewTenant(t, srv, "acme")
	other := apptest.NewTenant(t, srv, "other")
	id, secret := srv.Client(t, acme, domain.ScopeLoadRead)

	resp, m := legacyToken(t, srv, acme.ID.String(), id, secret)
	if resp.StatusCode != 200 {
		t.Fatalf("legacy token: %d %v", resp.StatusCode, m)
	}
	tok := m["access_token"].(string)
	if c := verifyWithDiscovery(t, srv, tok); c.Scope != "" || c.TenantID != acme.ID.String() {
		t.Fatalf("legacy token claims %+v: want no scope claim", c)
	}
	var raw map[string]any // absent, not merely empty
	parts := strings.Split(tok, ".")
	b, _ := decodeSegment(parts[1])
	_ = json.Unmarshal(b, &raw)
	if _, has := raw["scope"]; has {
		t.Fatal("legacy token carries a scope claim")
	}

	p := probe(t, srv)
	for _, op := range []domain.Operation{reads.OpReadInvoice, reads.OpSearchStatements, reads.OpListTrailers, reads.OpReadLoad} {
		if resp, body := callProbe(t, p, tok, op); resp.StatusCode != 200 {
			t.Errorf("%s with a legacy token: %d %s", op, resp.StatusCode, body)
		}
	}
	for _, op := range []domain.Operation{loads.OpCreateLoad, documents.OpUploadLoadDoc, webhooks.OpManageWebhooks} {
		if resp, _ := callProbe(t, p, tok, op); resp.StatusCode != 403 {
			t.Errorf("%s (not a read) with a legacy token: %d", op, resp.StatusCode)
		}
	}
	// The path's tenant must be the client's.
	resp, m = legacyToken(t, srv, other.ID.String(), id, secret)
	assertOAuthError(t, resp, m, 401, "invalid_client", "tenant")
}

func TestLegacyFlowEndsAtTheCutoff(t *testing.T) {
	t.Parallel()
	// The default configuration: the transition ended 2025-07-31.
	cfg, err := app.FromEnv() // DATABASE_URL is set for the tests
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2025, 8, 1, 0, 0, 0, 0, time.UTC); !cfg.LegacyCutoff.Equal(want) {
		t.Fatalf("default cutoff %v", cfg.LegacyCutoff)
	}

	before := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { c.LegacyCutoff = time.Now().Add(time.Hour) }})
	after := apptest.Start(t, apptest.Options{DatabaseURL: before.Config.DatabaseURL, Configure: func(c *app.Config) {
		c.LegacyCutoff = cfg.LegacyCutoff
		c.PublicURL = before.URL // same issuer, so only the cutoff differs
	}})
	acme := apptest.NewTenant(t, before, "acme")
	id, secret := before.Client(t, acme, domain.ScopeLoadRead)

	// The route answers 410 problem+json pointing to /oauth/token.
	resp, m := legacyToken(t, after, acme.ID.String(), id, secret)
	if resp.StatusCode != http.StatusGone || resp.Header.Get("Content-Type") != "application/problem+json" ||
		!strings.Contains(m["detail"].(string), "/oauth/token") || !strings.Contains(m["detail"].(string), "ended on 2025-07-31") || m["status"] != 410.0 {
		t.Fatalf("after the cutoff: %d %v", resp.StatusCode, m)
	}
	// A scope-less token obtained before the cutoff is refused after it.
	resp, m = legacyToken(t, before, acme.ID.String(), id, secret)
	if resp.StatusCode != 200 {
		t.Fatalf("before the cutoff: %d %v", resp.StatusCode, m)
	}
	r, body := callProbe(t, probe(t, after), m["access_token"].(string), reads.OpReadLoad)
	assertUnauthorized(t, r, body, "legacy tokens are no longer accepted, the transition ended on 2025-07-31")
	// While a token from /oauth/token is fine there.
	if r, body := callProbe(t, probe(t, after), after.Token(t, acme, domain.ScopeLoadRead), reads.OpReadLoad); r.StatusCode != 200 {
		t.Errorf("scoped token after the cutoff: %d %s", r.StatusCode, body)
	}
}
