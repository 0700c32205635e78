package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/testkit"
)

// TestMain lets a test run this binary's main() as a real child process
// (HAULGRAPH_TEST_MAIN=1), so that signals reach a real `haulgraph serve`.
func TestMain(m *testing.M) {
	if os.Getenv("HAULGRAPH_TEST_MAIN") == "1" {
		os.Args = append([]string{"haulgraph"}, strings.Fields(os.Getenv("HAULGRAPH_TEST_ARGS"))...)
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const testKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// serveProcess starts `haulgraph serve` as a child process on a free port
// and returns it with its base URL once it serves.
func serveProcess(t *testing.T, dbURL string) (*exec.Cmd, string, *apptest.LockedBuffer) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "HAULGRAPH_TEST_MAIN=1", "HAULGRAPH_TEST_ARGS=serve", "DATABASE_URL="+dbURL,
		"HAULGRAPH_ADDR="+addr, "HAULGRAPH_ADMIN_ADDR="+apptest.FreeAddr(t), "HAULGRAPH_ENCRYPTION_KEY="+testKey, "HAULGRAPH_DEV_ALLOW_HTTP_WEBHOOKS=true",
		"HAULGRAPH_BLOB_URL=file://"+filepath.Join(t.TempDir(), "blobs"),
		"HAULGRAPH_RATE_LIMIT_CLIENT=100000", "HAULGRAPH_RATE_LIMIT_TENANT=100000", // the request burst is no abuse
		"HAULGRAPH_SHUTDOWN_DRAIN=0") // no balancer here (app's TestStopDrainsBeforeClosing tests the drain)
	stderr := &apptest.LockedBuffer{}
	cmd.Stderr = stderr
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(out)
	ready := make(chan bool, 1)
	go func() {
		ok := false
		for lines.Scan() {
			if strings.HasPrefix(lines.Text(), "HaulGraph serving on ") && !ok {
				ok = true
				ready <- true
			}
		}
		if !ok {
			ready <- false
		}
	}()
	select {
	case ok := <-ready:
		if !ok {
			t.Fatalf("serve did not start: %s", stderr)
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("serve did not start within 60 s: %s", stderr)
	}
	return cmd, "http://" + addr, stderr
}

// SIGTERM during webhook deliveries and with a WebSocket open: the server
// exits 0 after closing the socket with 1001, records the attempts in
// flight and leaves no lease; after a restart every event is delivered
// exactly once.
func TestServeStopsCleanlyOnSIGTERM(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dbURL := dbtest.URL(t)

	rcv := testkit.NewReceiver(t)
	rcv.Answer(func(http.ResponseWriter, testkit.Delivery) {
		time.Sleep(100 * time.Millisecond) // a receiver that takes its time, so attempts are in flight at SIGTERM
	})
	// got counts the deliveries of each event id.
	got := func() map[string]int {
		out := map[string]int{}
		for _, d := range rcv.Received() {
			out[d.Header.Get("X-Service-Event-Id")]++
		}
		return out
	}

	// The tenant, an Active webhook and 30 loads (30 events), written before
	// any server runs.
	a, err := app.New(ctx, app.Config{DatabaseURL: dbURL, Audience: app.DefaultAudience, PublicURL: "http://127.0.0.1",
		BlobURL: "file://" + t.TempDir(), EncryptionKey: testKey, DevAllowHTTPWebhooks: true, TokenTTL: time.Hour},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	tenantOut := &strings.Builder{}
	if err := runTenants(ctx, a.DB, "tenants", []string{"create", "--slug", "acme", "--name", "Acme", "--json"}, tenantOut); err != nil {
		t.Fatal(err)
	}
	subOut := &strings.Builder{}
	if err := runTenants(ctx, a.DB, "subsidiaries", []string{"create", "--tenant", "acme", "--name", "Main", "--json"}, subOut); err != nil {
		t.Fatal(err)
	}
	var sub struct {
		ID       uuid.UUID `json:"id"`
		TenantID uuid.UUID `json:"tenant_id"`
	}
	_ = json.Unmarshal([]byte(subOut.String()), &sub)
	as := domain.WithPrincipal(ctx, &domain.Principal{TenantID: sub.TenantID, ClientID: "test",
		Scopes: []domain.Scope{domain.ScopeWebhookManage, domain.ScopeLoadCreate, domain.ScopeLoadUpdate}})
	name, url := "ERP", rcv.URL
	hook, _, err := a.Webhooks.Service.Create(as, webhooks.Input{Name: &name, URL: &url, SubsidiaryID: &sub.ID, EventTypes: []string{"load.changed"}})
	if err != nil {
		t.Fatal(err)
	}
	if hook, err = a.Webhooks.Service.Enable(as, hook.ID); err != nil || hook.State != webhooks.WebhookActive {
		t.Fatalf("enable: %v %v", hook, err)
	}
	const written = 30
	for i := range written {
		if _, err := a.Events.LoadWrites.CreateLoad(as, loads.Input{LoadNumber: "L-" + string(rune('A'+i%26)) + strings.Repeat("'", i/26), SubsidiaryID: sub.ID.String(),
			Stops: []loads.StopInput{{Type: "Pickup", Name: "A"}}}); err != nil {
			t.Fatal(err)
		}
	}
	db := a.DB
	defer a.Close()

	reader, secret, err := a.Auth.CreateClient(ctx, sub.TenantID, auth.ClientSpec{Name: "burst", Scopes: []domain.Scope{domain.ScopeLoadRead}})
	if err != nil {
		t.Fatal(err)
	}
	cmd, base, stderr := serveProcess(t, dbURL)
	token := clientToken(t, base, reader.ClientID, secret)
	requests := startBurst(t, base, token, "/api/p/v1/loads/L-A", 4)
	stopping := make(chan struct{})
	slow := slowRequest(t, base, token, stopping)
	select {
	case <-requests.first:
	case <-time.After(60 * time.Second):
		t.Fatalf("no answers to the request burst within 60 s: %s", stderr)
	}
	ws, _, err := websocket.DefaultDialer.Dial(strings.Replace(base, "http", "ws", 1)+"/graphql", http.Header{"Sec-WebSocket-Protocol": {"graphql-transport-ws"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	rcv.NextWithin(t, 60*time.Second)
	requests.signalled.Store(true)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	close(stopping)
	_ = ws.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, _, rerr := ws.ReadMessage()
	if !websocket.IsCloseError(rerr, websocket.CloseGoingAway) {
		t.Errorf("WebSocket at shutdown: %v, want close 1001", rerr)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve exited with %v; stderr: %s", err, stderr)
	}
	requests.wait(t)
	if err := <-slow; err != nil {
		t.Error(err)
	}
	if s := stderr.String(); strings.Contains(s, `"level":"ERROR"`) || strings.Contains(s, "panic") {
		t.Errorf("alarming output at shutdown: %s", s)
	}
	// No lease left: nothing Pending is parked in the future beyond a retry.
	var leased int
	if err := db.Pool.QueryRow(ctx, "SELECT count(*) FROM webhook_deliveries WHERE status = 'Pending' AND next_attempt_at > now() + interval '20 seconds'").Scan(&leased); err != nil {
		t.Fatal(err)
	}
	if leased != 0 {
		t.Fatalf("%d deliveries still leased after a clean stop", leased)
	}

	// Restart: every event arrives, and none twice.
	cmd2, _, stderr2 := serveProcess(t, dbURL)
	deadline := time.Now().Add(90 * time.Second)
	for {
		n := len(got())
		if n == written {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after restart %d of %d events delivered; stderr: %s", n, written, stderr2)
		}
		time.Sleep(20 * time.Millisecond) // polling the receiver's record
	}
	_ = cmd2.Process.Signal(syscall.SIGTERM)
	if err := cmd2.Wait(); err != nil {
		t.Fatalf("second serve exited with %v", err)
	}
	for id, n := range got() {
		if n != 1 {
			t.Errorf("event %s delivered %d times", id, n)
		}
	}
}
