package transport_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

type gqlResponse = testkit.GraphQLAnswer

func rawPost(t *testing.T, url, token, accept, body string) (*http.Response, gqlResponse) {
	t.Helper()
	res, b := testkit.PostGraphQL(t, url, token, accept, []byte(body))
	var out gqlResponse
	testkit.Decode(t, res, b, &out)
	return res, out
}

// gql POSTs one operation as application/json and decodes the answer.
func gql(t *testing.T, url, token, query string, vars map[string]any) gqlResponse {
	t.Helper()
	res, b := testkit.GraphQL(t, url, token, query, vars)
	var out gqlResponse
	testkit.Decode(t, res, b, &out)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("status %d: %+v", res.StatusCode, out)
	}
	return out
}

func TestNoTokenIsUnauthenticated(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	for _, token := range []string{"", "not-a-jwt"} {
		res, out := rawPost(t, srv.URL, token, "", `{"query":"{ eventTypes }"}`)
		if res.StatusCode != http.StatusUnauthorized {
			t.Errorf("token %q: status %d, want 401", token, res.StatusCode)
		}
		// RFC 6750 §3.1: an error code only when a token was presented.
		want := `Bearer error="invalid_token"`
		if token == "" {
			want = `Bearer realm="haulgraph"`
		}
		if wa := res.Header.Get("WWW-Authenticate"); !strings.HasPrefix(wa, want) || (token == "" && strings.Contains(wa, "error")) {
			t.Errorf("token %q: WWW-Authenticate %q, want %s", token, wa, want)
		}
		if out.Code(0) != "UNAUTHENTICATED" || out.Data != nil {
			t.Errorf("token %q: %+v, want one UNAUTHENTICATED error and no data", token, out)
		}
	}
}

func TestGraphiQLPageForBrowsers(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/graphql", nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/html") || !strings.Contains(strings.ToLower(string(b)), "graphiql") {
		t.Fatalf("status %d type %q: want the GraphiQL page", res.StatusCode, res.Header.Get("Content-Type"))
	}
}

// A signed-in client's batch or oversized body is refused (a client
// without a token is refused before its body is read: TestNoTokenIsUnauthenticated).
func TestBatchesAndLargeBodiesRefused(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tok := srv.Token(t, apptest.NewTenant(t, srv, "acme"), domain.ScopeLoadRead)
	res, out := rawPost(t, srv.URL, tok, "", `[{"query":"{ eventTypes }"},{"query":"{ eventTypes }"}]`)
	if res.StatusCode != http.StatusBadRequest || out.Code(0) != "BAD_USER_INPUT" || !strings.Contains(out.Errors[0].Message, "batched") {
		t.Errorf("batch: status %d %+v", res.StatusCode, out)
	}
	big := `{"query":"{ eventTypes }","variables":{"pad":"` + strings.Repeat("x", 2<<20) + `"}}`
	res, out = rawPost(t, srv.URL, tok, "", big)
	if res.StatusCode != http.StatusRequestEntityTooLarge || out.Code(0) != "PAYLOAD_TOO_LARGE" {
		t.Errorf("2 MiB body: status %d %+v, want 413", res.StatusCode, out)
	}
}
