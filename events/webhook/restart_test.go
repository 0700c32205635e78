package webhook_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/testkit"
)

// startInstance runs one complete instance (dispatcher and worker included)
// on the shared database, after the optional edits; stop ends it like a
// process shutdown.
func startInstance(t *testing.T, url string, edits ...func(*app.App)) (a *app.App, stop func()) {
	t.Helper()
	cfg := app.Config{DatabaseURL: url, Addr: "127.0.0.1:0", Audience: app.DefaultAudience, DevAllowHTTPWebhooks: true,
		EncryptionKey: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", BlobURL: "file://" + t.TempDir(),
		PublicURL: "http://127.0.0.1:1", TokenTTL: time.Hour}
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	for _, edit := range edits {
		edit(a)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = a.Run(ctx) }()
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
			a.Close()
		}
	}
	t.Cleanup(stop)
	return a, stop
}

// activeHook makes a tenant with a subsidiary and an Active webhook of
// load.changed to hookURL, created through one instance and enabled through
// another (or the same).
func activeHook(t *testing.T, creates, enables *app.App, hookURL string) (tenant, sub uuid.UUID) {
	t.Helper()
	tenant, sub = uuid.New(), uuid.New()
	ctx := context.Background()
	if _, err := creates.DB.Bun.ExecContext(ctx, "INSERT INTO tenants (id, slug, name) VALUES (?, 'acme', 'Acme')", tenant); err != nil {
		t.Fatal(err)
	}
	if _, err := creates.DB.Bun.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'main')", sub, tenant); err != nil {
		t.Fatal(err)
	}
	pctx := domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenant, Scopes: []domain.Scope{domain.ScopeWebhookManage}})
	name := "erp"
	w, _, err := creates.Webhooks.Service.Create(pctx, webhooks.Input{Name: &name, URL: &hookURL, EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub})
	if err != nil {
		t.Fatal(err)
	}
	if w, err = enables.Webhooks.Service.Enable(pctx, w.ID); err != nil || w.State != webhooks.WebhookActive {
		t.Fatalf("enable: %v %v", err, w)
	}
	return tenant, sub
}

// A receiver that is down while the server restarts still gets the event
// (same id) from the next instance: the pending attempt lives in the database.
// The next instance's clock starts at the retry's due time instead of the
// test waiting the first retry delay (5 s).
func TestDeliverySurvivesRestartWhileReceiverDown(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	rcv := testkit.NewReceiver(t)

	a1, stop1 := startInstance(t, url)
	tenant, sub := activeHook(t, a1, a1, rcv.URL+"/hook")
	ctx := context.Background()
	rcv.Answer(func(w http.ResponseWriter, _ testkit.Delivery) {
		// Down: the connection drops without an answer.
		conn, _, _ := w.(http.Hijacker).Hijack()
		_ = conn.Close()
	})
	eventID := uuid.NewString() + "-0"
	if _, err := a1.DB.Bun.ExecContext(ctx, `INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload)
		VALUES (?, ?, ?, 'load.changed', ?, ?)`, eventID, tenant, sub, uuid.New(), `{"id":"`+eventID+`","type":"load.changed","version":"v1","data":{}}`); err != nil {
		t.Fatal(err)
	}
	if got := rcv.Next(t).Header.Get("X-Service-Event-Id"); got != eventID {
		t.Fatalf("attempted %s", got)
	}
	stop1()
	for range len(rcv.Received()) - 1 { // attempts the first instance made besides (all recorded: it has stopped)
		rcv.Next(t)
	}
	rcv.Answer(nil)

	startInstance(t, url, func(a *app.App) {
		a.Webhooks.Worker.Now = func() time.Time { return time.Now().Add(webhooks.DeliveryRetrySchedule[0]) }
	})
	if got := rcv.Next(t).Header.Get("X-Service-Event-Id"); got != eventID {
		t.Fatalf("after restart delivered %s, want %s", got, eventID)
	}
}

// Two complete instances on one database behave as one service: every event
// is delivered exactly once in normal operation.
func TestTwoInstancesDeliverEachEventOnce(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	rcv := testkit.NewReceiver(t)
	a1, _ := startInstance(t, url)
	a2, _ := startInstance(t, url)
	tenant, sub := activeHook(t, a2, a1, rcv.URL+"/hook")
	ctx := context.Background()
	const n = 60
	for i := 0; i < n; i++ {
		db := a1.DB
		if i%2 == 1 {
			db = a2.DB
		}
		id := uuid.NewString() + "-0"
		if _, err := db.Bun.ExecContext(ctx, `INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload)
			VALUES (?, ?, ?, 'load.changed', ?, ?)`, id, tenant, sub, uuid.New(), `{"id":"`+id+`","type":"load.changed","version":"v1","data":{}}`); err != nil {
			t.Fatal(err)
		}
	}
	// Wait (bounded) until the database says every delivery is done.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var delivered int
		if err := a1.DB.Bun.QueryRowContext(ctx, "SELECT count(*) FROM webhook_deliveries WHERE status = 'Delivered'").Scan(&delivered); err != nil {
			t.Fatal(err)
		}
		if delivered == n {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d delivered", delivered, n)
		}
		time.Sleep(20 * time.Millisecond) // polling the database's own record, bounded by the deadline
	}
	var rows, attempts int
	_ = a1.DB.Bun.QueryRowContext(ctx, "SELECT count(*) FROM webhook_deliveries").Scan(&rows)
	_ = a1.DB.Bun.QueryRowContext(ctx, "SELECT count(*) FROM webhook_attempts").Scan(&attempts)
	if requests := len(rcv.Received()); rows != n || attempts != n || requests != n {
		t.Fatalf("%d delivery rows, %d attempts, %d requests for %d events", rows, attempts, requests, n)
	}
}
