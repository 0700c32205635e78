package apptest_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/testkit"
)

// TestPoolerTransactionMode: an instance whose DATABASE_URL is a real
// PgBouncer in transaction mode (server connections handed to another
// client after each transaction, so no named prepared statement survives)
// serves the read path (REST invoice and statement search, GraphQL
// dashboard), the write path (a load mutation), a live subscription that
// receives the write's event and a webhook delivery of it; PgBouncer's
// console shows the traffic went through it on fewer server connections
// than the instance's clients; the relay's LISTEN and the migrations used
// the direct URL.
func TestPoolerTransactionMode(t *testing.T) {
	t.Parallel()
	const poolSize = 3
	direct := dbtest.EmptyURL(t) // the migrations run too, on the direct URL
	bouncer := apptest.StartPgBouncer(t, direct, poolSize)
	u, _ := url.Parse(direct)
	dbName := strings.TrimPrefix(u.Path, "/")
	srv := apptest.Start(t, apptest.Options{DatabaseURL: bouncer.URL, Configure: func(c *app.Config) {
		c.Pooler, c.DirectDatabaseURL = storage.PoolerPgBouncer, direct
	}})
	ctx := context.Background()
	stat := func(name string) int64 {
		t.Helper()
		rows := bouncer.Show(t, "STATS", dbName)
		if len(rows) != 1 {
			t.Fatalf("SHOW STATS: %d rows for %s", len(rows), dbName)
		}
		n, err := strconv.ParseInt(rows[0][name], 10, 64)
		if err != nil {
			t.Fatalf("SHOW STATS %s: %v", name, err)
		}
		return n
	}
	before := stat("total_xact_count")

	res, err := seed.Run(ctx, srv.DB, seed.Options{Tenant: "acme", Scale: 1})
	if err != nil {
		t.Fatalf("seed through PgBouncer: %v", err)
	}
	tn := apptest.Tenant{ID: res.TenantID, Slug: "acme", SubsidiaryID: res.SubsidiaryID}
	read := srv.Token(t, tn, domain.ScopeInvoiceRead, domain.ScopeDriverRead, domain.ScopeLoadRead)
	write := srv.Token(t, tn, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripUpdate)
	manage := srv.Token(t, tn, domain.ScopeWebhookManage)

	receiver := testkit.NewReceiver(t)
	var hook struct{ Id, State string }
	_ = json.Unmarshal(call(t, srv, "POST", "/api/p/v1/webhooks", manage, fmt.Sprintf(`{"Name":"ERP","Url":%q,"EventTypes":["load.changed"],"SubsidiaryId":%q}`,
		receiver.URL+"/hook", tn.SubsidiaryID), http.StatusCreated), &hook)
	// Enabling runs the verification challenge.
	if err := json.Unmarshal(call(t, srv, "POST", "/api/p/v1/webhooks/"+hook.Id+"/enable", manage, "", http.StatusOK), &hook); err != nil || hook.State != "Active" {
		t.Fatalf("webhook %+v: %v", hook, err)
	}

	// A live subscription over SSE.
	events := subscribeSSE(t, srv, read, `subscription { loadChanged { id data { load { loadNumber } } } }`)
	for deadline := time.Now().Add(30 * time.Second); srv.GraphQL.Live.Members() < 1; {
		if time.Now().After(deadline) {
			t.Fatal("the subscription did not start")
		}
		time.Sleep(10 * time.Millisecond)
	}

	// The read path, concurrently: the instance opens more connections to
	// PgBouncer than PgBouncer opens to the server.
	var first time.Time
	if err := pgxQueryRow(t, direct, "SELECT min(statement_date) FROM settlement_statements", &first); err != nil {
		t.Fatal(err)
	}
	from, to := first.Format("2006-01-02"), first.AddDate(0, 1, 0).Format("2006-01-02")
	dashboard, _ := json.Marshal(map[string]any{"query": `query($from: DateTime!, $to: DateTime!) { settlementStatements(
		filter: {statementDateRange: {start: $from, end: $to}}, page: 0, pageSize: 20) { items { number driver { name } totals { netIncome { amount } } } } }`,
		"variables": map[string]string{"from": from + "T00:00:00Z", "to": to + "T00:00:00Z"}})
	reads := []struct{ method, path, body string }{
		{"GET", "/api/p/v1/invoices?id=" + res.Invoice.ID.String(), ""},
		{"POST", "/api/p/v1/driver-settlement-statements/search", fmt.Sprintf(`{"Page":0,"PageSize":20,"StatementDateRange":{"Start":"%sT00:00:00Z","End":"%sT00:00:00Z"}}`, from, to)},
		{"POST", "/graphql", string(dashboard)},
	}
	const readers, rounds = 16, 5
	var wg sync.WaitGroup
	for i := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range rounds {
				r := reads[(i+j)%len(reads)]
				b := call(t, srv, r.method, r.path, read, r.body, http.StatusOK)
				if bytes.Contains(b, []byte(`"errors":[`)) || len(b) < 50 {
					t.Errorf("%s %s: %.300s", r.method, r.path, b)
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	pools := bouncer.Show(t, "POOLS", dbName)
	if len(pools) != 1 || pools[0]["pool_mode"] != "transaction" {
		t.Fatalf("SHOW POOLS: %v", pools)
	}
	p := pools[0]
	clients := atoi(t, p["cl_active"]) + atoi(t, p["cl_waiting"])
	servers := atoi(t, p["sv_active"]) + atoi(t, p["sv_idle"]) + atoi(t, p["sv_used"]) + atoi(t, p["sv_tested"]) + atoi(t, p["sv_login"])
	if servers < 1 || servers > poolSize || clients <= servers {
		t.Fatalf("PgBouncer holds %d client and %d server connections (pool size %d): want fewer servers than clients", clients, servers, poolSize)
	}

	// The write path: the event reaches the subscription and the webhook.
	b := call(t, srv, "POST", "/graphql", write, gqlJSON(`mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
		map[string]any{"in": map[string]any{"loadNumber": "PB-1", "subsidiaryId": tn.SubsidiaryID.String(), "rate": map[string]any{"amount": 900},
			"commodity": "Paper", "stops": []any{
				map[string]any{"type": "Pickup", "name": "Mill", "address": map[string]any{"street": "1 Mill Rd", "city": "Springfield", "state": "IL", "zipCode": "62701"}},
				map[string]any{"type": "Delivery", "name": "Press", "address": map[string]any{"street": "2 Press St", "city": "Peoria", "state": "IL", "zipCode": "61602"}}}}}),
		http.StatusOK)
	if !bytes.Contains(b, []byte(`"loadNumber":"PB-1"`)) {
		t.Fatalf("createLoad: %s", b)
	}
	select {
	case e := <-events:
		if !strings.Contains(e, `"loadNumber":"PB-1"`) {
			t.Fatalf("subscription got %s", e)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the subscription received no event")
	}
	if d := receiver.Next(t); !bytes.Contains(d.Body, []byte(`"PB-1"`)) {
		t.Fatalf("webhook delivery %s", d.Body)
	}

	// All of it went through PgBouncer: at least a transaction per request.
	if n := stat("total_xact_count") - before; n < readers*rounds+1 {
		t.Fatalf("PgBouncer counted %d transactions, fewer than the %d requests", n, readers*rounds+1)
	}
	// The relay listens on a session of its own, straight to the server:
	// a backend in LISTEN that is none of PgBouncer's server connections.
	servedPIDs := map[string]bool{}
	for _, s := range bouncer.Show(t, "SERVERS", dbName) {
		servedPIDs[s["remote_pid"]] = true
	}
	conn, err := pgx.Connect(ctx, direct)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid::text FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'LISTEN `+storage.NotifyChannel+`'`)
	if err != nil {
		t.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil || len(pids) != 1 || servedPIDs[pids[0]] {
		t.Fatalf("backends in LISTEN: %v (%v); PgBouncer's: %v", pids, err, servedPIDs)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}

func pgxQueryRow(t *testing.T, url, sql string, dst ...any) error {
	t.Helper()
	c, err := pgx.Connect(context.Background(), url)
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	return c.QueryRow(context.Background(), sql).Scan(dst...)
}

func gqlJSON(query string, vars map[string]any) string {
	b, _ := json.Marshal(map[string]any{"query": query, "variables": vars})
	return string(b)
}

// call sends one request with a bearer token and wants status.
func call(t *testing.T, srv *apptest.Server, method, path, token, body string, status int) []byte {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Error(err)
		return nil
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Errorf("%s %s: %v", method, path, err)
		return nil
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != status {
		t.Errorf("%s %s: status %d, want %d: %.300s", method, path, res.StatusCode, status, b)
	}
	return b
}

// subscribeSSE opens a GraphQL event stream and returns the data of its
// results; the stream ends with the test, whose cleanup waits for the reader.
func subscribeSSE(t *testing.T, srv *apptest.Server, token, query string) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, "POST", srv.URL+"/graphql/stream", strings.NewReader(gqlJSON(query, nil)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("event stream: %v %v", res, err)
	}
	out := make(chan string, 16)
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				select {
				case out <- data:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	return out
}
