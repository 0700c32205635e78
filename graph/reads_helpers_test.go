package graph_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/readstest"
	"github.com/haulgraph/haulgraph/testkit"
)

type gqlResponse = testkit.GraphQLAnswer

// world is a running server with two seeded tenants.
type world struct {
	srv  *apptest.Server
	a, b readstest.Fixture
	ta   apptest.Tenant
}

func newWorld(t testing.TB, statements int) *world {
	t.Helper()
	return newWorldWith(t, statements, nil)
}

// newWorldWith is newWorld with the instance's configuration edited.
func newWorldWith(t testing.TB, statements int, configure func(*app.Config)) *world {
	t.Helper()
	srv := apptest.Start(t, apptest.Options{Configure: configure})
	ta := apptest.NewTenant(t, srv, "acme")
	tb := apptest.NewTenant(t, srv, "globex")
	w := &world{srv: srv, ta: ta}
	w.a = readstest.Seed(t, srv.DB, ta.ID, ta.SubsidiaryID, ta.Slug, statements)
	w.b = readstest.Seed(t, srv.DB, tb.ID, tb.SubsidiaryID, tb.Slug, 30)
	return w
}

// allReadScopes are the scopes the read fields require.
var allReadScopes = []domain.Scope{domain.ScopeInvoiceRead, domain.ScopeDriverRead, domain.ScopeTrailerRead,
	domain.ScopeCustomerRead, domain.ScopeUserRead, domain.ScopeLoadRead, "carrier:read"}

// token obtains a real token for tenant A holding scopes through
// POST /oauth/token (clientcredentials). The scope matrix needs more scope
// sets than a customer may hold credential sets (10), so each client's row
// is deleted once its token is issued (revoking it would revoke the token
// too); the token stays valid until it expires.
func (w *world) token(t testing.TB, scopes ...domain.Scope) string {
	t.Helper()
	id, secret := w.srv.Client(t, w.ta, scopes...)
	tok, err := w.srv.OAuth(id, secret).Token(context.Background())
	if err != nil {
		t.Fatalf("token: %v", err)
	}
	if err := w.srv.DB.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM api_clients WHERE client_id = ?", id)
		return err
	}); err != nil {
		t.Fatalf("delete client: %v", err)
	}
	return tok.AccessToken
}

// gql POSTs one operation as application/json and decodes the answer.
func gql(t testing.TB, url, token, query string, vars map[string]any) gqlResponse {
	t.Helper()
	res, out := do(t, url, token, "application/json", map[string]any{"query": query, "variables": vars})
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %+v", res.StatusCode, out)
	}
	return out
}

// do POSTs body, a GraphQL request, accepting accept, and decodes the answer.
func do(t testing.TB, url, token, accept string, body any) (*http.Response, gqlResponse) {
	t.Helper()
	res, raw := testkit.PostGraphQL(t, url, token, accept, testkit.MustJSON(t, body))
	var out gqlResponse
	testkit.Decode(t, res, raw, &out)
	return res, out
}
