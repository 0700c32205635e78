package apptest_test

import (
	"net/http"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// A GET answer carries a strong ETag, the same on every instance; a GET
// whose If-None-Match holds it is a 304 without a body that spends none of
// the client's tokens (each client's bucket holds one, for a hundred
// seconds); after a write the tag changes. REST and GraphQL alike; a POST
// is not conditional.
func TestResponseCacheConditionalGET(t *testing.T) {
	t.Parallel()
	r := newCacheRig(t, func(c *app.Config) { c.ClientRateLimit = 0.01 })
	n := r.res.LoadWithTrips
	// A client of its own for each request below (one token each).
	client := func(extra domain.Scope) string { return r.srv1.Token(t, r.tn, append(readScopes, extra)...) }
	const query = `query($n:String!){load(loadNumber:$n){orderNumber}}`
	reads := []cacheReq{
		{method: "GET", path: "/api/p/v1/loads/" + n},
		gqlGet(query, map[string]any{"n": n}),
	}
	tags := make([]string, len(reads))
	for i, q := range reads {
		token := client([]domain.Scope{domain.ScopeTripRead, domain.ScopeTripUpdate}[i])
		first := doCached(t, r.srv1, token, q)
		tag := first.header.Get("ETag")
		if first.status != http.StatusOK || len(tag) < 10 || tag[0] != '"' || first.header.Get("Cache-Control") != "private, no-cache" ||
			first.header.Get("Vary") != "Authorization, Accept" {
			t.Fatalf("%s: %d ETag %q Cache-Control %q Vary %q", q.path, first.status, tag, first.header.Get("Cache-Control"), first.header.Get("Vary"))
		}
		tags[i] = tag
		conditional := q
		conditional.header = map[string]string{"If-None-Match": tag}
		for j := range 6 {
			srv := []*apptest.Server{r.srv1, r.srv2}[j%2] // the second never computed it
			got := doCached(t, srv, token, conditional)
			if got.status != http.StatusNotModified || len(got.body) != 0 || got.header.Get("ETag") != tag {
				t.Fatalf("%s conditional #%d on %s: %d ETag %q body %q", q.path, j, srv.URL, got.status, got.header.Get("ETag"), got.body)
			}
		}
		// The one token went to the first GET: an unconditional GET is refused.
		if got := doCached(t, r.srv1, token, q); got.status != http.StatusTooManyRequests {
			t.Fatalf("%s: the client's bucket was not empty: %d", q.path, got.status)
		}
	}

	// After a write the old tag is not current: a 200 with a new tag.
	r.sql(t, "UPDATE loads SET order_number = order_number || '.' WHERE tenant_id = $1 AND load_number = $2", r.tn.ID, n)
	for i, q := range reads {
		q.header = map[string]string{"If-None-Match": tags[i]}
		got := doCached(t, r.srv2, client([]domain.Scope{domain.ScopeLoadCreate, domain.ScopeLoadUpdate}[i]), q)
		if got.status != http.StatusOK || got.header.Get("ETag") == tags[i] || got.header.Get("ETag") == "" {
			t.Errorf("%s after a write: %d ETag %q (was %q)", q.path, got.status, got.header.Get("ETag"), tags[i])
		}
	}

	// A document the server would refuse is never answered 304, even with
	// If-None-Match: *: it goes through the limits, and spends the token.
	bad := gqlGet(`{ nosuchfield }`, nil)
	bad.header = map[string]string{"If-None-Match": "*"}
	refused := client(domain.ScopeDriverUpdate)
	for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		if got := doCached(t, r.srv1, refused, bad); got.status != want {
			t.Errorf("invalid conditional GET #%d: %d %s, want %d", i, got.status, got.body, want)
		}
	}

	// A POST read is not conditional: If-None-Match matching its answer is 412.
	search := cacheReq{method: "POST", path: "/api/p/v1/users/search", body: `{"Page":1,"PageSize":3}`,
		header: map[string]string{"If-None-Match": "*"}}
	if got := doCached(t, r.srv1, client(domain.ScopeWebhookManage), search); got.status != http.StatusPreconditionFailed {
		t.Errorf("POST with If-None-Match: *: %d %s", got.status, got.body)
	}

	// If-None-Match: * on a GET asks whether an answer exists: 304 for a
	// load that does, the answer itself (404) for one that does not.
	for i, c := range []struct {
		q    cacheReq
		want int
	}{
		{cacheReq{method: "GET", path: "/api/p/v1/loads/" + n}, http.StatusNotModified},
		{cacheReq{method: "GET", path: "/api/p/v1/loads/LD-NO-SUCH-LOAD"}, http.StatusNotFound},
		{gqlGet(query, map[string]any{"n": n}), http.StatusNotModified},
	} {
		c.q.header = map[string]string{"If-None-Match": "*"}
		extra := [][]domain.Scope{{}, {domain.ScopeTripRead}, {domain.ScopeTripUpdate}}[i] // a client (one token) each
		got := doCached(t, r.srv2, r.srv1.Token(t, r.tn, append(append(readScopes, domain.ScopeCarrierUpdate), extra...)...), c.q)
		if got.status != c.want || c.want == http.StatusNotModified && len(got.body) != 0 {
			t.Errorf("%s with If-None-Match: *: %d %q, want %d", c.q.path, got.status, got.body, c.want)
		}
	}
}
