package main

import (
	"bytes"
	"io"
	"net/http"
	"os/exec"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
)

// A write made with the CLI (`haulgraph trigger load.changed`) reaches the
// answers two instances hold in their response caches: the next read on
// each returns the new data.
func TestCLIWriteReachesCachedAnswers(t *testing.T) {
	t.Parallel()
	url, res := seedtest.URL(t, seed.Options{Tenant: "acme", Scale: 1})
	cacheOn := func(like *apptest.Server) func(*app.Config) {
		return func(c *app.Config) {
			c.ResponseCacheBytes = 4 << 20
			if like != nil {
				c.PublicURL = like.Config.PublicURL
			}
		}
	}
	srv1 := apptest.Start(t, apptest.Options{DatabaseURL: url, Configure: cacheOn(nil)})
	srv2 := apptest.Start(t, apptest.Options{DatabaseURL: url, Configure: cacheOn(srv1)})
	tn := apptest.Tenant{ID: res.TenantID, Slug: "acme", SubsidiaryID: res.SubsidiaryID}
	token := srv1.Token(t, tn, domain.ScopeLoadRead)
	get := func(srv *apptest.Server) (string, []byte) {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/p/v1/loads/"+res.LoadWithTrips, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET load: %d %s", resp.StatusCode, b)
		}
		return resp.Header.Get("Cache-Status"), b
	}
	_, before := get(srv1)
	for _, srv := range []*apptest.Server{srv1, srv2} {
		get(srv)
		if status, b := get(srv); status != "haulgraph; hit" || !bytes.Equal(b, before) {
			t.Fatalf("%s: not from memory: %q", srv.URL, status)
		}
	}
	id, secret := srv1.Client(t, tn, domain.ScopeLoadRead, domain.ScopeLoadUpdate)
	cmd := exec.Command(haulgraphBinary(t), "trigger", "load.changed", "--load", res.LoadWithTrips, "--api", srv1.URL)
	cmd.Env, cmd.Dir = apptest.CleanEnv("HAULGRAPH_CLIENT_ID="+id, "HAULGRAPH_CLIENT_SECRET="+secret, "HOME="+t.TempDir()), t.TempDir()
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("trigger: %v\n%s", err, out)
	}
	for _, srv := range []*apptest.Server{srv1, srv2} {
		if status, b := get(srv); bytes.Equal(b, before) {
			t.Errorf("%s after the CLI's write: the old answer (%q)", srv.URL, status)
		}
	}
}
