package apptest_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// gqlPost is a GraphQL POST of query with variables.
func gqlPost(query string, vars map[string]any) cacheReq {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return cacheReq{method: "POST", path: "/graphql", body: string(b)}
}

// gqlGet is the same operation as a GET.
func gqlGet(query string, vars map[string]any) cacheReq {
	v := url.Values{"query": {query}}
	if vars != nil {
		b, _ := json.Marshal(vars)
		v.Set("variables", string(b))
	}
	return cacheReq{method: "GET", path: "/graphql?" + v.Encode()}
}

func mustGraphQL(t *testing.T, srv *apptest.Server, token string, q cacheReq) cacheRes {
	t.Helper()
	res := doCached(t, srv, token, q)
	if res.status != http.StatusOK || bytes.Contains(res.body, []byte(`"errors"`)) {
		t.Fatalf("%s: %d %s", q.path, res.status, res.body)
	}
	return res
}

// A mutation through one instance reaches the cached answers of both: the
// GraphQL queries (POST and GET) and the REST read of the load.
func TestResponseCacheNeverStaleAfterMutations(t *testing.T) {
	t.Parallel()
	r := newCacheRig(t, nil)
	token := r.srv1.Token(t, r.tn, append(readScopes, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripRead, domain.ScopeTripUpdate)...)
	n := r.res.LoadWithTrips
	createLoad(t, r.srv1, token, r.tn, "CACHE-OPEN", "goods")
	const query = `query($n:String!){load(loadNumber:$n){poNumber status trips{id trailer{id trailerNum}}}}`
	readsOf := func(n string) []cacheReq {
		vars := map[string]any{"n": n}
		return []cacheReq{gqlPost(query, vars), gqlGet(query, vars), {method: "GET", path: "/api/p/v1/loads/" + n}}
	}
	var tripID string
	{
		var out struct {
			Data struct {
				Load struct{ Trips []struct{ ID string } }
			}
		}
		if err := json.Unmarshal(mustGraphQL(t, r.srv1, token, readsOf(n)[0]).body, &out); err != nil || len(out.Data.Load.Trips) == 0 {
			t.Fatalf("no trip: %v", err)
		}
		tripID = out.Data.Load.Trips[0].ID
	}
	trailer := r.res.TrailerID.String()
	mutations := []struct{ name, load, doc string }{
		{"updateLoad", n, `mutation{updateLoad(loadNumber:"` + n + `",input:{poNumber:"PO-CACHE-1"}){id}}`},
		{"changeLoadStatus", "CACHE-OPEN", `mutation{changeLoadStatus(loadNumber:"CACHE-OPEN",status:Quoted){id}}`},
		{"updateTrip", n, `mutation{updateTrip(id:"` + tripID + `",input:{trailerId:"` + trailer + `"}){id}}`},
	}
	for _, m := range mutations {
		reads := readsOf(m.load)
		before := make([][]byte, len(reads))
		for i, q := range reads {
			before[i] = r.warm(t, token, q).answer()
		}
		res := doCached(t, r.srv1, token, gqlPost(m.doc, nil))
		if res.status != http.StatusOK || bytes.Contains(res.body, []byte(`"errors"`)) {
			t.Fatalf("%s: %d %s", m.name, res.status, res.body)
		}
		for i, q := range reads {
			for _, srv := range []*apptest.Server{r.srv1, r.srv2} {
				after := doCached(t, srv, token, q)
				if after.status != http.StatusOK || bytes.Equal(after.answer(), before[i]) {
					t.Errorf("after %s, %s %s on %s: %d, Cache-Status %q, the old answer %t",
						m.name, q.method, q.path, srv.URL, after.status, after.cacheStatus(), bytes.Equal(after.answer(), before[i]))
				}
			}
		}
	}
}

// A cached answer reaches no one it was not computed for: another tenant
// asking the same question, a client of the same tenant with fewer scopes,
// a client whose credentials were revoked.
func TestResponseCacheKeepsAnswersToTheirCallers(t *testing.T) {
	t.Parallel()
	r := newCacheRig(t, nil)
	n := r.res.LoadWithTrips
	other := apptest.NewTenant(t, r.srv1, "cache-other")
	otherTok := r.srv1.Token(t, other, domain.ScopeLoadCreate, domain.ScopeLoadRead)
	createLoad(t, r.srv1, otherTok, other, n, "other tenant's goods")

	const query = `query($n:String!){load(loadNumber:$n){commodity}}`
	for _, q := range []cacheReq{gqlPost(query, map[string]any{"n": n}), {method: "GET", path: "/api/p/v1/loads/" + n}} {
		mine := r.warm(t, r.token, q)
		theirs := doCached(t, r.srv1, otherTok, q)
		if theirs.status != http.StatusOK || bytes.Equal(theirs.answer(), mine.answer()) || !bytes.Contains(theirs.body, []byte("other tenant's goods")) {
			t.Errorf("%s %s: the other tenant got %d %s", q.method, q.path, theirs.status, theirs.body)
		}
		if again := doCached(t, r.srv1, r.token, q); !bytes.Equal(again.answer(), mine.answer()) || again.cacheStatus() != "haulgraph; hit" {
			t.Errorf("%s %s: the first tenant's answer changed or left memory: %q %s", q.method, q.path, again.cacheStatus(), again.body)
		}
	}

	// A narrow client of the same tenant: the invoice answer cached for the
	// wide one is a 403 for it (REST), an error and no invoice (GraphQL).
	narrow := r.srv1.Token(t, r.tn, domain.ScopeLoadRead)
	invREST := cacheReq{method: "GET", path: "/api/p/v1/invoices?id=" + r.res.Invoice.ID.String()}
	r.warm(t, r.token, invREST)
	if got := doCached(t, r.srv1, narrow, invREST); got.status != http.StatusForbidden {
		t.Errorf("narrow client, cached invoice: %d %s", got.status, got.body)
	}
	invGQL := gqlPost(`query($id:ID!){invoice(id:$id){number}}`, map[string]any{"id": r.res.Invoice.ID.String()})
	wide := r.warm(t, r.token, invGQL)
	if got := doCached(t, r.srv1, narrow, invGQL); bytes.Equal(got.answer(), wide.answer()) || bytes.Contains(got.body, []byte(r.res.Invoice.Number)) ||
		!bytes.Contains(got.body, []byte("FORBIDDEN")) {
		t.Errorf("narrow client, cached GraphQL invoice: %d %s", got.status, got.body)
	}

	// Revoked credentials: the answer their token warmed is not theirs any more.
	id, secret := r.srv1.Client(t, r.tn, domain.ScopeLoadRead)
	tok, err := r.srv1.OAuth(id, secret).Token(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	loadREST := cacheReq{method: "GET", path: "/api/p/v1/loads/" + n}
	r.warm(t, tok.AccessToken, loadREST)
	if err := r.srv1.Auth.RevokeClient(t.Context(), r.tn.ID, id); err != nil {
		t.Fatal(err)
	}
	// (The instance that revoked knows at once; another within its
	// revocation poll, cached answers or not.)
	if got := doCached(t, r.srv1, tok.AccessToken, loadREST); got.status != http.StatusUnauthorized {
		t.Errorf("revoked client: %d %s", got.status, got.body)
	}
}

// An answer with errors is never stored: asked again it is computed again;
// nor is one of a query selecting a type outside the resources.
func TestResponseCacheNeverStoresErrors(t *testing.T) {
	t.Parallel()
	r := newCacheRig(t, nil)
	for _, q := range []cacheReq{
		gqlPost(`query($n:String!){load(loadNumber:$n){commodity}}`, map[string]any{"n": "NO-SUCH-LOAD"}),
		gqlPost(`{invoice(id:"00000000-0000-0000-0000-000000000000"){number} load(loadNumber:"`+r.res.LoadWithTrips+`"){commodity}}`, nil),
		{method: "GET", path: "/api/p/v1/loads/NO-SUCH-LOAD"},
	} {
		for range 3 {
			got := doCached(t, r.srv1, r.token, q)
			if strings.Contains(got.cacheStatus(), "hit") || strings.Contains(got.cacheStatus(), "stored") {
				t.Fatalf("%s %s: %q %d %s", q.method, q.path, got.cacheStatus(), got.status, got.body)
			}
		}
	}
	// A query selecting documents (their download links expire) is not
	// cacheable at all.
	docs := gqlPost(`query($n:String!){load(loadNumber:$n){documents{id}}}`, map[string]any{"n": r.res.LoadWithTrips})
	for range 2 {
		if got := mustGraphQL(t, r.srv1, r.token, docs); got.cacheStatus() != "" {
			t.Errorf("documents: Cache-Status %q", got.cacheStatus())
		}
	}
	if s := r.srv1.Cache.Stats(); s.Hits != 0 || r.srv1.Cache.TenantBytes(r.tn.ID) != 0 {
		t.Errorf("answers with errors reached the cache: %+v, %d bytes", s, r.srv1.Cache.TenantBytes(r.tn.ID))
	}
}

// A persisted query sent by its hash alone is answered from memory like its
// text: the key is the document's SHA-256 either way.
func TestResponseCachePersistedQuery(t *testing.T) {
	t.Parallel()
	r := newCacheRig(t, nil)
	const query = `query($n:String!){load(loadNumber:$n){commodity}}`
	sum := sha256.Sum256([]byte(query))
	ext := map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}
	vars := map[string]any{"n": r.res.LoadWithTrips}
	register, _ := json.Marshal(map[string]any{"query": query, "variables": vars, "extensions": ext})
	first := mustGraphQL(t, r.srv1, r.token, cacheReq{method: "POST", path: "/graphql", body: string(register)})
	v, _ := json.Marshal(vars)
	e, _ := json.Marshal(ext)
	byHash := cacheReq{method: "GET", path: "/graphql?" + url.Values{"variables": {string(v)}, "extensions": {string(e)}}.Encode()}
	got := mustGraphQL(t, r.srv1, r.token, byHash)
	if got.cacheStatus() != "haulgraph; hit" || !bytes.Equal(got.answer(), first.answer()) || got.header.Get("ETag") == "" {
		t.Errorf("persisted query by hash: %q ETag %q %s", got.cacheStatus(), got.header.Get("ETag"), got.body)
	}
	// The cost report is each request's own, from memory too.
	var out struct {
		Extensions struct {
			Cost struct{ RequestedQueryCost, ActualQueryCost int }
		}
	}
	if err := json.Unmarshal(got.body, &out); err != nil || out.Extensions.Cost.RequestedQueryCost == 0 || out.Extensions.Cost.ActualQueryCost == 0 {
		t.Errorf("a hit's extensions.cost: %+v %v", out.Extensions.Cost, err)
	}
	// The counters reach /metrics, without a tenant label.
	res, err := http.Get(r.srv1.AdminURL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	metrics, _ := io.ReadAll(res.Body)
	for _, want := range []string{"haulgraph_response_cache_hits_total 1", "haulgraph_response_cache_misses_total 1", "haulgraph_response_cache_bytes "} {
		if !bytes.Contains(metrics, []byte("\n"+want)) {
			t.Errorf("/metrics has no %q", want)
		}
	}
	if bytes.Contains(metrics, []byte("haulgraph_response_cache_hits_total{")) {
		t.Error("the cache's metrics carry labels")
	}
}
