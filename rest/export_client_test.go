package rest_test

// The export against its client: one that stops reading or goes away, and
// the limit on concurrent exports.

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/testkit"
)

// slowClient dials with a 4 KiB receive buffer, so that a client that stops
// reading stalls the server after a few buffers instead of megabytes.
func slowClient() *http.Client {
	d := &net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		if err != nil {
			return err
		}
		return serr
	}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, DisableCompression: true}}
}

// exportBackends counts the database sessions running an export, by state.
func exportBackends(t *testing.T, db *storage.DB, state string) int {
	t.Helper()
	var n int
	q := `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1`
	args := []any{storage.ExportApplicationName}
	if state != "" {
		q += " AND state = $2"
		args = append(args, state)
	}
	if err := db.Pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// startExport opens an export with a slow client and reads its first line;
// the caller cancels it.
func startExport(t *testing.T, f *fixture, token, query string) (stop func(), firstLine string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", f.srv.URL+exportPath+"?"+query, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := slowClient().Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK {
		cancel()
		t.Fatalf("export: status %d", res.StatusCode)
	}
	line, err := bufio.NewReaderSize(res.Body, 16).ReadString('\n')
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return func() { cancel(); res.Body.Close() }, line
}

// A client that goes away mid-stream ends the export's transaction at once,
// and one that goes while the database is still working cancels the query
// on the server (it holds no lock or snapshot for nobody).
func TestExportStopsWhenTheClientGoes(t *testing.T) {
	f := newFixture(t, apptest.Options{})
	q := "start=" + f.seed.StatementFrom.String() + "&end=" + f.seed.StatementTo.String()

	t.Run("mid-stream", func(t *testing.T) {
		// 30 more copies of every statement (without lines): an export of
		// some 15 MB, more than the sockets between client and server hold.
		if _, err := f.srv.DB.Pool.Exec(context.Background(), `INSERT INTO settlement_statements
			SELECT r.* FROM settlement_statements s, generate_series(1, 30) g,
				LATERAL jsonb_populate_record(NULL::settlement_statements, to_jsonb(s) ||
					jsonb_build_object('id', gen_random_uuid(), 'number', s.number + g * 100000)) r
			WHERE s.tenant_id = $1`, f.tenant.ID); err != nil {
			t.Fatal(err)
		}
		stop, first := startExport(t, f, f.all, q)
		if !strings.HasPrefix(first, "StatementNumber,") {
			t.Fatalf("first line %q", first)
		}
		// The client does not read: the server stalls in a write, its
		// transaction open and idle (the same idle moment seen twice).
		var last time.Time
		eventually(t, "the export to stall on the unread socket", func() bool {
			var changed time.Time
			err := f.srv.DB.Pool.QueryRow(context.Background(), `SELECT state_change FROM pg_stat_activity WHERE datname = current_database()
				AND application_name = $1 AND state = 'idle in transaction'`, storage.ExportApplicationName).Scan(&changed)
			stalled := err == nil && changed.Equal(last) && time.Since(changed) > 200*time.Millisecond
			last = changed
			return stalled
		})
		stop()
		eventually(t, "the export's session to end its transaction", func() bool { return exportBackends(t, f.srv.DB, "") == 0 })
	})

	t.Run("while a query runs", func(t *testing.T) {
		ctx := context.Background()
		lock, err := f.srv.DB.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer lock.Rollback(ctx)
		if _, err := lock.Exec(ctx, "LOCK TABLE statement_line_items IN ACCESS EXCLUSIVE MODE"); err != nil {
			t.Fatal(err)
		}
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() {
			req, _ := http.NewRequestWithContext(rctx, "GET", f.srv.URL+exportPath+"?"+q, nil)
			req.Header.Set("Authorization", "Bearer "+f.all)
			res, err := http.DefaultClient.Do(req)
			if err == nil {
				res.Body.Close()
			}
			done <- err
		}()
		eventually(t, "the export's query to wait on the lock", func() bool { return exportBackends(t, f.srv.DB, "active") == 1 })
		cancel()
		if err := <-done; err == nil {
			t.Fatal("the request finished although the client cancelled it")
		}
		// The lock is still held: only a cancellation ends that query.
		eventually(t, "the server to cancel the query", func() bool { return exportBackends(t, f.srv.DB, "") == 0 })
	})
}

// At most two exports of a tenant run at once, across instances; the third
// is 429 with Retry-After; other tenants are not limited; an export that
// ends frees its slot.
func TestExportConcurrencyLimit(t *testing.T) {
	f := newFixture(t, apptest.Options{})
	other := apptest.Start(t, apptest.Options{DatabaseURL: f.srv.Config.DatabaseURL})
	q := "start=" + f.seed.StatementFrom.String() + "&end=" + f.seed.StatementTo.String()
	// Two exports hold their slots while their line query waits on a lock.
	ctx := context.Background()
	lock, err := f.srv.DB.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Rollback(ctx)
	if _, err := lock.Exec(ctx, "LOCK TABLE statement_line_items IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}
	var stops []context.CancelFunc
	done := make(chan struct{}, 2)
	for range 2 {
		rctx, cancel := context.WithCancel(ctx)
		stops = append(stops, cancel)
		go func() {
			defer func() { done <- struct{}{} }()
			req, _ := http.NewRequestWithContext(rctx, "GET", f.srv.URL+exportPath+"?"+q, nil)
			req.Header.Set("Authorization", "Bearer "+f.all)
			if res, err := http.DefaultClient.Do(req); err == nil {
				res.Body.Close()
			}
		}()
	}
	defer func() {
		for _, stop := range stops {
			stop()
		}
		<-done
		<-done
	}()
	eventually(t, "two running exports", func() bool { return exportBackends(t, f.srv.DB, "active") == 2 })

	res, body := f.export(t, q, f.all, nil)
	p := wantProblem(t, res, body, http.StatusTooManyRequests)
	if res.Header.Get("Retry-After") == "" || !strings.Contains(p.Detail, "exports") {
		t.Fatalf("429 without Retry-After or a detail naming the limit: %v %s", res.Header, body)
	}
	// Another instance on the same database refuses too.
	tok := other.Token(t, f.tenant, domain.ScopeDriverRead)
	res, body = testkit.Request(t, "GET", other.URL+exportPath+"?"+q, map[string]string{"Authorization": "Bearer " + tok}, "")
	wantProblem(t, res, body, http.StatusTooManyRequests)
	// Another tenant is not limited by this one's exports.
	tb := apptest.NewTenant(t, f.srv, "export-other")
	res, body = f.export(t, q, f.srv.Token(t, tb, domain.ScopeDriverRead), nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("another tenant: %d %s", res.StatusCode, body)
	}

	stops[0]()
	eventually(t, "one export to end", func() bool { return exportBackends(t, f.srv.DB, "") == 1 })
	res, body = f.export(t, "start=2031-01-01&end=2031-01-02", f.all, nil)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("after one export ended: %d %s", res.StatusCode, body)
	}
}
