package apptest_test

import (
	"context"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// With a replica an hour behind, read-your-writes holds through the cache:
// a client that wrote through one instance reads its write on the other,
// although that instance holds the answer from before it.
func TestResponseCacheReadYourWrites(t *testing.T) {
	t.Parallel()
	e := newReplicaEnv(t)
	start := func(like *apptest.Server) *apptest.Server {
		return apptest.Start(t, apptest.Options{
			DatabaseURL: e.c.Primary().URL(""),
			ReplicaURLs: []string{e.standby.URL("")},
			Configure: func(c *app.Config) {
				c.ReplicaMaxLag = time.Minute
				c.ResponseCacheBytes = 4 << 20
				if like != nil {
					c.PublicURL = like.Config.PublicURL
				}
			},
		})
	}
	srv1 := start(nil)
	srv2 := start(srv1)
	tn := apptest.NewTenant(t, srv1, "cache-ryw")
	id, secret := srv1.Client(t, tn, domain.ScopeLoadCreate, domain.ScopeLoadRead, domain.ScopeLoadUpdate)
	tok, err := srv1.OAuth(id, secret).Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	createLoad(t, srv1, tok.AccessToken, tn, "CRYW-1", "before")
	e.standby.WaitReplay(30 * time.Second)
	waitHealthy(t, srv1, true)
	waitHealthy(t, srv2, true)
	e.standby.Exec("postgres", "ALTER SYSTEM SET recovery_min_apply_delay = '1h'", "SELECT pg_reload_conf()")

	reads := []cacheReq{
		{method: "GET", path: "/api/p/v1/loads/CRYW-1"},
		gqlPost(`query($n:String!){load(loadNumber:$n){commodity}}`, map[string]any{"n": "CRYW-1"}),
	}
	for _, q := range reads {
		doCached(t, srv2, tok.AccessToken, q)
		if got := doCached(t, srv2, tok.AccessToken, q); got.cacheStatus() != "haulgraph; hit" {
			t.Fatalf("%s %s: not from memory: %q", q.method, q.path, got.cacheStatus())
		}
	}
	out := rrGraphQL(t, srv1, tok.AccessToken, `mutation{updateLoad(loadNumber:"CRYW-1",input:{commodity:"after"}){id}}`, nil)
	if out["errors"] != nil {
		t.Fatalf("updateLoad: %v", out["errors"])
	}
	if got := restCommodity(t, srv2, tok.AccessToken, "CRYW-1"); got != "after" {
		t.Fatalf("REST after the client's write: %q", got)
	}
	if got := loadCommodity(t, srv2, tok.AccessToken, "CRYW-1"); got != "after" {
		t.Fatalf("GraphQL after the client's write: %q", got)
	}
}
