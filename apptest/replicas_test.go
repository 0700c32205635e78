package apptest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/pgcluster"
)

// replicaEnv is a 1+1 cluster with instances reading from its standby.
type replicaEnv struct {
	c       *pgcluster.Cluster
	standby *pgcluster.Node
}

func newReplicaEnv(t *testing.T) *replicaEnv {
	c := pgcluster.Start(t, pgcluster.Options{Standbys: 1})
	return &replicaEnv{c: c, standby: c.Standby(1)}
}

// start runs an instance on the cluster; like is an instance it joins
// (nil: none): one public URL, so that a token from one is good on the
// other, as behind one load balancer.
func (e *replicaEnv) start(t *testing.T, maxLag time.Duration, like *apptest.Server) *apptest.Server {
	return apptest.Start(t, apptest.Options{
		DatabaseURL: e.c.Primary().URL(""),
		ReplicaURLs: []string{e.standby.URL("")},
		Configure: func(c *app.Config) {
			c.ReplicaMaxLag = maxLag
			if like != nil {
				c.PublicURL = like.Config.PublicURL
			}
		},
	})
}

// waitHealthy polls srv's health checker until the replica's verdict is want.
func waitHealthy(t *testing.T, srv *apptest.Server, want bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		h := srv.ReplicasHealthy()
		if len(h) == 1 && h[0] == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replica healthy = %v, want %v", h, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func clusterScalar[T any](t *testing.T, url, sql string, args ...any) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var v T
	if err := conn.QueryRow(ctx, sql, args...).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

func rrGraphQL(t *testing.T, srv *apptest.Server, token, query string, vars map[string]any) map[string]any {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatalf("graphql: %d: %v", res.StatusCode, err)
	}
	return out
}

func createLoad(t *testing.T, srv *apptest.Server, token string, tn apptest.Tenant, number, commodity string) {
	t.Helper()
	out := rrGraphQL(t, srv, token, `mutation($in:CreateLoadInput!){createLoad(input:$in){id}}`, map[string]any{"in": map[string]any{
		"loadNumber": number, "subsidiaryId": tn.SubsidiaryID.String(), "commodity": commodity,
		"stops": []any{map[string]any{"type": "Pickup", "name": "A"}, map[string]any{"type": "Delivery", "name": "B"}}}})
	if out["errors"] != nil {
		t.Fatalf("createLoad: %v", out["errors"])
	}
}

// loadCommodity reads a load through a GraphQL query: its commodity, or
// "" when the load is not found.
func loadCommodity(t *testing.T, srv *apptest.Server, token, number string) string {
	t.Helper()
	out := rrGraphQL(t, srv, token, `query($n:String!){load(loadNumber:$n){commodity}}`, map[string]any{"n": number})
	data, _ := out["data"].(map[string]any)
	load, _ := data["load"].(map[string]any)
	if load == nil {
		// Null with NOT_FOUND only: any other error is the test's failure.
		errs, _ := out["errors"].([]any)
		if len(errs) != 1 || !strings.Contains(fmt.Sprint(errs[0]), "NOT_FOUND") {
			t.Fatalf("load %s: %v", number, out)
		}
		return ""
	}
	return load["commodity"].(string)
}

func restCommodity(t *testing.T, srv *apptest.Server, token, number string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/p/v1/loads/"+number, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode == http.StatusNotFound {
		return ""
	}
	var l struct{ Commodity string }
	if err := json.NewDecoder(res.Body).Decode(&l); err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("GET load %s: %d %v", number, res.StatusCode, err)
	}
	return l.Commodity
}

// setCommodity changes a load on the primary behind the API's back: no
// client's write is recorded, so only the primary has the new value until
// the standby replays it.
func setCommodity(t *testing.T, e *replicaEnv, number, commodity string) {
	t.Helper()
	e.c.Primary().Exec("", "UPDATE loads SET commodity = '"+commodity+"' WHERE load_number = '"+number+"'")
}

// Reads (GraphQL queries, REST GETs) are served by the replica, and
// row-level security holds there: tenant B does not see A's load.
func TestReplicaServesReadsUnderRLS(t *testing.T) {
	t.Parallel()
	e := newReplicaEnv(t)
	srv := e.start(t, time.Minute, nil)
	a, b := apptest.NewTenant(t, srv, "rr-a"), apptest.NewTenant(t, srv, "rr-b")
	tokA := srv.Token(t, a, domain.ScopeLoadCreate, domain.ScopeLoadRead)
	tokB := srv.Token(t, b, domain.ScopeLoadCreate, domain.ScopeLoadRead)
	createLoad(t, srv, tokA, a, "RR-A", "before")
	createLoad(t, srv, tokB, b, "RR-B", "before")
	e.standby.WaitReplay(30 * time.Second)
	waitHealthy(t, srv, true)

	// Freeze the standby, then change both loads on the primary only.
	e.standby.Exec("", "SELECT pg_wal_replay_pause()")
	setCommodity(t, e, "RR-A", "after")
	setCommodity(t, e, "RR-B", "after")

	if got := loadCommodity(t, srv, tokA, "RR-A"); got != "before" {
		t.Fatalf("GraphQL query read %q: not served by the replica (want before)", got)
	}
	if got := restCommodity(t, srv, tokA, "RR-A"); got != "before" {
		t.Fatalf("REST GET read %q: not served by the replica (want before)", got)
	}
	if got := loadCommodity(t, srv, tokB, "RR-B"); got != "before" {
		t.Fatalf("tenant B read %q of its own load: not served by the replica", got)
	}
	if got := loadCommodity(t, srv, tokB, "RR-A"); got != "" {
		t.Fatalf("tenant B read tenant A's load on the replica: %q", got)
	}
	if got := restCommodity(t, srv, tokB, "RR-A"); got != "" {
		t.Fatalf("tenant B read tenant A's load over REST on the replica: %q", got)
	}
	e.standby.Exec("", "SELECT pg_wal_replay_resume()")
	e.standby.WaitReplay(30 * time.Second)
	if got := loadCommodity(t, srv, tokB, "RR-B"); got != "after" {
		t.Fatalf("after replay the replica serves %q, want after", got)
	}
}

// A replica delayed with recovery_min_apply_delay past the lag bound is
// skipped (reads see the primary) and used again once it has caught up.
func TestDelayedReplicaSkippedPastLagBound(t *testing.T) {
	t.Parallel()
	e := newReplicaEnv(t)
	srv := e.start(t, time.Second, nil)
	a := apptest.NewTenant(t, srv, "lag-a")
	tok := srv.Token(t, a, domain.ScopeLoadCreate, domain.ScopeLoadRead)
	createLoad(t, srv, tok, a, "LAG-1", "before")
	e.standby.WaitReplay(30 * time.Second)
	waitHealthy(t, srv, true)
	scans := func() int64 {
		return clusterScalar[int64](t, e.standby.URL(""),
			"SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0)::bigint FROM pg_stat_user_tables WHERE relname = 'loads'")
	}
	base := scans() // no read has gone to the standby yet

	e.standby.Exec("postgres", "ALTER SYSTEM SET recovery_min_apply_delay = '1h'", "SELECT pg_reload_conf()")
	setCommodity(t, e, "LAG-1", "after")
	waitHealthy(t, srv, false)
	if got := loadCommodity(t, srv, tok, "LAG-1"); got != "after" {
		t.Fatalf("with the replica past the bound a read saw %q, want the primary's after", got)
	}

	e.standby.Exec("postgres", "ALTER SYSTEM SET recovery_min_apply_delay = 0", "SELECT pg_reload_conf()")
	e.standby.WaitReplay(30 * time.Second)
	waitHealthy(t, srv, true)
	if got := loadCommodity(t, srv, tok, "LAG-1"); got != "after" {
		t.Fatalf("read %q after recovery, want after", got)
	}
	// The standby's own statistics count that read (they are flushed
	// within seconds of it).
	deadline := time.Now().Add(30 * time.Second)
	for scans() == base {
		if time.Now().After(deadline) {
			t.Fatal("the recovered replica served no read")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A client that writes through one instance and reads through another
// sees its write at once, although the replica is an hour behind; another
// client of the same tenant, which wrote nothing, is served by that stale
// replica.
func TestReadYourWritesAcrossInstances(t *testing.T) {
	t.Parallel()
	e := newReplicaEnv(t)
	srv1 := e.start(t, time.Minute, nil)
	srv2 := e.start(t, time.Minute, srv1)
	tn := apptest.NewTenant(t, srv1, "ryw")
	id, secret := srv1.Client(t, tn, domain.ScopeLoadCreate, domain.ScopeLoadRead, domain.ScopeWebhookManage)
	tok, err := srv1.OAuth(id, secret).Token(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	other := srv2.Token(t, tn, domain.ScopeLoadRead)
	otherHooks := srv2.Token(t, tn, domain.ScopeWebhookManage)
	e.standby.WaitReplay(30 * time.Second)
	waitHealthy(t, srv1, true)
	waitHealthy(t, srv2, true)
	e.standby.Exec("postgres", "ALTER SYSTEM SET recovery_min_apply_delay = '1h'", "SELECT pg_reload_conf()")

	createLoad(t, srv1, tok.AccessToken, tn, "RYW-1", "fresh")
	if got := loadCommodity(t, srv2, tok.AccessToken, "RYW-1"); got != "fresh" {
		t.Fatalf("the writer read %q through the other instance, want its write", got)
	}
	if got := restCommodity(t, srv2, tok.AccessToken, "RYW-1"); got != "fresh" {
		t.Fatalf("the writer read %q over REST through the other instance, want its write", got)
	}
	if got := loadCommodity(t, srv2, other, "RYW-1"); got != "" {
		t.Fatalf("a client that wrote nothing read %q: not served by the delayed replica", got)
	}

	// A webhook change (REST) is a write too: its GET on the other
	// instance finds it.
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(receiver.Close)
	body, _ := json.Marshal(map[string]any{"Name": "ryw", "Url": receiver.URL + "/hook", "EventTypes": []string{"load.changed"}, "SubsidiaryId": tn.SubsidiaryID.String()})
	created := restDo(t, srv1.URL, tok.AccessToken, http.MethodPost, "/api/p/v1/webhooks", body, http.StatusCreated)
	var hook struct{ Id string } //nolint:revive
	if err := json.Unmarshal(created, &hook); err != nil || hook.Id == "" {
		t.Fatalf("created webhook: %s %v", created, err)
	}
	restDo(t, srv2.URL, tok.AccessToken, http.MethodGet, "/api/p/v1/webhooks/"+hook.Id, nil, http.StatusOK)
	restDo(t, srv2.URL, otherHooks, http.MethodGet, "/api/p/v1/webhooks/"+hook.Id, nil, http.StatusNotFound)
}

// restDo sends a request with the bearer token to base+path, expects the
// status want and returns the body.
func restDo(t *testing.T, base, token, method, path string, body []byte, want int) []byte {
	t.Helper()
	req, _ := http.NewRequest(method, base+path, bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, res.StatusCode, b, want)
	}
	return b
}

// A replica that does not answer is skipped (reads keep working on the
// primary) and used again once it is back.
func TestUnreachableReplicaSkipped(t *testing.T) {
	t.Parallel()
	e := newReplicaEnv(t)
	srv := e.start(t, time.Minute, nil)
	a := apptest.NewTenant(t, srv, "down-a")
	tok := srv.Token(t, a, domain.ScopeLoadCreate, domain.ScopeLoadRead)
	createLoad(t, srv, tok, a, "DOWN-1", "kept")
	e.standby.WaitReplay(30 * time.Second)
	waitHealthy(t, srv, true)

	// Before the health check has noticed, reads already go on (the
	// primary takes a read whose replica cannot be reached).
	e.standby.Stop()
	if got := loadCommodity(t, srv, tok, "DOWN-1"); got != "kept" {
		t.Fatalf("with the replica just down a read saw %q, want kept", got)
	}
	waitHealthy(t, srv, false)
	if got := restCommodity(t, srv, tok, "DOWN-1"); got != "kept" {
		t.Fatalf("with the replica skipped a REST read saw %q, want kept", got)
	}
	e.standby.Start()
	waitHealthy(t, srv, true)
	if got := loadCommodity(t, srv, tok, "DOWN-1"); got != "kept" {
		t.Fatalf("after the replica came back a read saw %q, want kept", got)
	}
}
