package apptest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// The connections open from one address are capped at the listener: the
// one over the cap is closed at once, unanswered; another address is not
// affected, and a freed place is taken again.
// Bound: the connection over the cap of 20 is closed (EOF) rather than
// answered or held open.
func TestHostileHTTPConnectionsPerAddress(t *testing.T) {
	const limit = 20
	srv := httpServer(t, app.HTTPLimits{MaxConnsPerAddr: limit})
	get := func(c net.Conn) (*http.Response, error) {
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: haulgraph\r\n\r\n"); err != nil {
			return nil, err
		}
		res, _, err := readAnswer(c, bufio.NewReader(c), time.Now().Add(10*time.Second))
		return res, err
	}
	held := make([]net.Conn, limit)
	for i := range held {
		held[i] = dialRaw(t, srv, "127.0.0.1", false)
		defer held[i].Close()
		if _, err := get(held[i]); err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
	}
	over := dialRaw(t, srv, "127.0.0.1", false)
	defer over.Close()
	if res, err := get(over); err == nil {
		t.Errorf("connection %d from one address answered %d, want it closed", limit+1, res.StatusCode)
	} else if isTimeout(err) {
		t.Errorf("connection %d from one address was neither answered nor closed: %v", limit+1, err)
	}
	other := dialRaw(t, srv, "127.0.0.2", false)
	defer other.Close()
	if _, err := get(other); err != nil {
		t.Errorf("another address is refused while 127.0.0.1 is at its cap: %v", err)
	}
	held[0].Close()
	waitFor(t, 3*time.Second, "a freed place taken again", func() bool {
		c := dialRaw(t, srv, "127.0.0.1", false)
		defer c.Close()
		_, err := get(c)
		return err == nil
	})
}

// A statement export whose client never reads is cut after the write
// timeout: its PostgreSQL connection leaves its transaction (snapshot and
// export slot released), and the tenant's next export works.
// Bound: both stalled exports release their sessions within 20 s of their
// first line: the time to fill the sockets between (under -race) plus the
// write timeout (500 ms).
func TestHostileHTTPStalledExport(t *testing.T) {
	const writeTimeout = 500 * time.Millisecond
	srv := httpServer(t, app.HTTPLimits{WriteTimeout: writeTimeout})
	ctx := context.Background()
	res, err := seed.Run(ctx, srv.DB, seed.Options{Tenant: "stall", Scale: 1})
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
	// 10 more copies of every statement (without lines): an export of some
	// 5 MB, more than the sockets between client and server hold.
	if _, err := srv.DB.Pool.Exec(ctx, `INSERT INTO settlement_statements
		SELECT r.* FROM settlement_statements s, generate_series(1, 10) g,
			LATERAL jsonb_populate_record(NULL::settlement_statements, to_jsonb(s) ||
				jsonb_build_object('id', gen_random_uuid(), 'number', s.number + g * 100000)) r
		WHERE s.tenant_id = $1`, res.TenantID); err != nil {
		t.Fatal(err)
	}
	token := srv.Token(t, apptest.Tenant{ID: res.TenantID, Slug: "stall", SubsidiaryID: res.SubsidiaryID}, domain.ScopeDriverRead)
	path := "/api/p/v1/driver-settlement-statements/export?start=" + res.StatementFrom.String() + "&end=" + res.StatementTo.String()
	// The sessions of a running export: its application_name, or any
	// transaction left open (the pool's idle connections are not counted:
	// the pool keeps them whatever the export did).
	exporting := func() (n int) {
		t.Helper()
		if err := srv.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND (application_name = $1 OR state = 'idle in transaction')`, storage.ExportApplicationName).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	base := srv.Backends(t)
	var stalledConns []net.Conn
	for range 2 {
		c := dialRaw(t, srv, "", true)
		defer c.Close()
		stalledConns = append(stalledConns, c)
		if _, err := io.WriteString(c, head("GET", path, token, "", 0)); err != nil {
			t.Fatal(err)
		}
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		var line [12]byte
		if _, err := io.ReadFull(c, line[:]); err != nil || string(line[:]) != "HTTP/1.1 200" {
			t.Fatalf("export: %q %v", line, err)
		}
		// From here the client reads nothing.
	}
	stalled := time.Now()
	held := exporting()
	waitFor(t, 20*time.Second, fmt.Sprintf("the export sessions leave their transactions after their clients stopped reading (write timeout %v)", writeTimeout),
		func() bool { return exporting() == 0 })
	t.Logf("2 stalled exports: %d export sessions at the stall, 0 after %v; backends %d before, %d after",
		held, time.Since(stalled).Round(time.Millisecond), base, srv.Backends(t))
	// What the stalled clients had not read ends short: the exports were
	// cut, not finished.
	for _, c := range stalledConns {
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		got, err := http.ReadResponse(bufio.NewReader(io.MultiReader(strings.NewReader("HTTP/1.1 200"), c)), nil)
		if err != nil {
			t.Fatalf("a stalled export's answer: %v", err)
		}
		n, err := io.Copy(io.Discard, got.Body)
		if !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("a stalled export ended with %v after %d more bytes, want a truncated transfer", err, n)
		}
	}
	day := res.StatementFrom.String()
	req, _ := http.NewRequest("GET", srv.URL+"/api/p/v1/driver-settlement-statements/export?start="+day+"&end="+day, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	next, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, next.Body)
	next.Body.Close()
	if next.StatusCode != http.StatusOK || err != nil {
		t.Errorf("the tenant's next export: status %d, %d bytes, %v", next.StatusCode, n, err)
	}
}
