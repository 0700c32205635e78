package auth_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

func decodeSegment(s string) ([]byte, error) { return base64.RawURLEncoding.DecodeString(s) }

// TestExternalIssuer: an API configured with HAULGRAPH_ISSUER_URL verifies
// that issuer's tokens through its discovery document and JWKS (its own
// database holds none of the issuer's keys), and refuses tokens of its own token endpoint.
func TestExternalIssuer(t *testing.T) {
	t.Parallel()
	issuer := apptest.Start(t, apptest.Options{})
	api := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { c.IssuerURL = issuer.URL }})
	acme := apptest.NewTenant(t, issuer, "acme")
	tok := issuer.Token(t, acme, domain.ScopeInvoiceRead)

	resp, body := callProbe(t, probe(t, api), tok, reads.OpReadInvoice)
	if resp.StatusCode != 200 {
		t.Fatalf("external token refused: %d %s", resp.StatusCode, body)
	}
	var p domain.Principal
	_ = json.Unmarshal(body, &p)
	if p.TenantID != acme.ID || domain.JoinScopes(p.Scopes) != "invoice:read" {
		t.Errorf("principal %+v", p)
	}

	local := apptest.NewTenant(t, api, "local")
	own := api.Token(t, local, domain.ScopeInvoiceRead)
	resp, body = callProbe(t, probe(t, api), own, reads.OpReadInvoice)
	assertUnauthorized(t, resp, body, "signature") // not in the trusted issuer's JWKS
}

// TestUnreachableExternalIssuerRefusesWithoutHanging: while the issuer is
// down, tokens are refused (401, retry later), not waited on forever.
func TestUnreachableExternalIssuerRefusesWithoutHanging(t *testing.T) {
	t.Parallel()
	gone := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, gone, "acme")
	tok := gone.Token(t, acme, domain.ScopeInvoiceRead)
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close() // a URL nobody answers
	api := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) { c.IssuerURL = down.URL }})

	resp, body := callProbe(t, probe(t, api), tok, reads.OpReadInvoice)
	assertUnauthorized(t, resp, body, "could not be verified now")
}
