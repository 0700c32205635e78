package events_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/events"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

func startRelay(t *testing.T, db *storage.DB, poll time.Duration) (*events.Relay, *events.Hub) {
	t.Helper()
	return startRelayRetrying(t, db, poll, 0)
}

func startRelayRetrying(t *testing.T, db *storage.DB, poll, retry time.Duration) (*events.Relay, *events.Hub) {
	t.Helper()
	hub := events.NewHub()
	r := &events.Relay{Outbox: &storage.Outbox{DB: db}, Hub: hub, Poll: poll, Retry: retry,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = r.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case <-r.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("relay not ready")
	}
	return r, hub
}

// subscribe registers a subscriber with a buffer of 16 events.
func subscribe(hub *events.Hub, tenant uuid.UUID) (chan *eventlog.LiveEvent, eventlog.Subscription) {
	ch := make(chan *eventlog.LiveEvent, 16)
	sub := hub.Subscribe(tenant, eventlog.Filter{}, eventlog.Sink{
		Deliver: func(ev *eventlog.LiveEvent) bool {
			select {
			case ch <- ev:
				return true
			default:
				return false
			}
		},
		Ended: func(bool) {},
	})
	return ch, sub
}

func receive(t *testing.T, ch chan *eventlog.LiveEvent) *eventlog.LiveEvent {
	t.Helper()
	select {
	case ev := <-ch:
		return ev
	case <-time.After(10 * time.Second):
		t.Fatal("no event within 10s")
		return nil
	}
}

func TestRelayPublishesCommittedWritesOnceAndWakes(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	tenant, sub := newTenant(t, db, "relay")
	svc := &loads.Writes{Store: &storage.LoadWrites{DB: db}}
	caller := domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenant, Scopes: []domain.Scope{domain.ScopeLoadCreate, domain.ScopeLoadUpdate}})
	create := func(n string) {
		if _, err := svc.CreateLoad(caller, loads.Input{LoadNumber: n, SubsidiaryID: sub.String(), Stops: []loads.StopInput{{Type: "Pickup"}}}); err != nil {
			t.Fatal(err)
		}
	}
	create("before-start") // final before the relay started: not replayed to live subscribers
	// Final: readers wait for every older transaction on the server, other
	// tests' included; one committed but not final yet would be published.
	dbtest.WaitOutboxFinal(t, db)

	// A poll interval far beyond the test's deadlines: delivery must come from NOTIFY.
	relay, hub := startRelay(t, db, time.Hour)
	wake, stop := relay.Wake()
	defer stop()
	s, subscription := subscribe(hub, tenant)
	defer subscription.Close()

	create("L-1")
	ev := receive(t, s)
	if ev.Data.Load.LoadNumber != "L-1" || ev.Type != domain.EventLoadChanged || ev.Timestamp.IsZero() || ev.SubsidiaryID != sub {
		t.Fatalf("first event: %+v", ev)
	}
	select {
	case <-wake:
	case <-time.After(10 * time.Second):
		t.Fatal("waker not woken")
	}
	if _, err := svc.ChangeLoadStatus(caller, "L-1", "Covered"); err != nil {
		t.Fatal(err)
	}
	a, b := receive(t, s), receive(t, s)
	if a.Type != domain.EventLoadChanged || b.Type != domain.EventLoadStatusChanged || a.Data.Diff == nil || b.Data.Diff != nil {
		t.Fatalf("status events: %+v / %+v", a, b)
	}
	create("L-2")
	if ev := receive(t, s); ev.Data.Load.LoadNumber != "L-2" {
		t.Fatalf("expected L-2 next (nothing replayed, nothing skipped), got %s", ev.Data.Load.LoadNumber)
	}
	if n := len(s); n != 0 {
		t.Fatalf("%d unexpected extra events", n)
	}
}

// TestRelayPollsWhenNotificationsAreLost: with the NOTIFY trigger disabled,
// the relay still delivers through its polling fallback.
func TestRelayPollsWhenNotificationsAreLost(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	tenant, sub := newTenant(t, db, "poll")
	if _, err := db.Pool.Exec(ctx, `ALTER TABLE events DISABLE TRIGGER events_notify`); err != nil {
		t.Fatal(err)
	}
	_, hub := startRelay(t, db, 50*time.Millisecond)
	ch, subscription := subscribe(hub, tenant)
	defer subscription.Close()
	svc := &loads.Writes{Store: &storage.LoadWrites{DB: db}}
	caller := domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenant, Scopes: []domain.Scope{domain.ScopeLoadCreate}})
	if _, err := svc.CreateLoad(caller, loads.Input{LoadNumber: "P-1", SubsidiaryID: sub.String(), Stops: []loads.StopInput{{Type: "Pickup"}}}); err != nil {
		t.Fatal(err)
	}
	if ev := receive(t, ch); ev.Data.Load.LoadNumber != "P-1" {
		t.Fatalf("polled event: %+v", ev)
	}
}

// TestRelayListensAgainAfterLosingItsConnection: when the server ends the
// relay's LISTEN connection (as a lost primary does), the relay connects
// again after its Retry pause, publishes what committed meanwhile, and
// hears the next notification on the new connection.
func TestRelayListensAgainAfterLosingItsConnection(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	tenant, sub := newTenant(t, db, "relisten")
	// No polling within the test: events come from a drain on reconnecting
	// or from NOTIFY on the new connection.
	_, hub := startRelayRetrying(t, db, time.Hour, 20*time.Millisecond)
	ch, subscription := subscribe(hub, tenant)
	defer subscription.Close()
	svc := &loads.Writes{Store: &storage.LoadWrites{DB: db}}
	caller := domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenant, Scopes: []domain.Scope{domain.ScopeLoadCreate}})
	create := func(n string) {
		t.Helper()
		if _, err := svc.CreateLoad(caller, loads.Input{LoadNumber: n, SubsidiaryID: sub.String(), Stops: []loads.StopInput{{Type: "Pickup"}}}); err != nil {
			t.Fatal(err)
		}
	}
	// terminate ends the relay's listening connection, once it listens
	// again: a relay that has reconnected may not have sent LISTEN yet.
	terminate := func() {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			var n int
			if err := db.Pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
				WHERE datname = current_database() AND query LIKE 'LISTEN %'`).Scan(&n); err != nil || n > 1 {
				t.Fatalf("terminating the relay's connection: %d terminated, %v", n, err)
			} else if n == 1 {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the relay did not listen again within 30 s")
			}
			time.Sleep(10 * time.Millisecond) // polling pg_stat_activity, bounded by the deadline
		}
	}
	for i := range 3 {
		terminate()
		create(fmt.Sprintf("R-%d", i))
		if ev := receive(t, ch); ev.Data.Load.LoadNumber != fmt.Sprintf("R-%d", i) {
			t.Fatalf("after reconnection %d: %+v", i, ev.Data.Load)
		}
	}
}

// newTenant writes a tenant with one subsidiary and answers both ids.
func newTenant(t *testing.T, db *storage.DB, slug string) (tenant, sub uuid.UUID) {
	t.Helper()
	tenant, sub = uuid.New(), uuid.New()
	if _, err := db.Pool.Exec(context.Background(), `INSERT INTO tenants (id, slug, name) VALUES ($1, $2, $2)`, tenant, slug); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(context.Background(), `INSERT INTO subsidiaries (id, tenant_id, name) VALUES ($1, $2, 'S')`, sub, tenant); err != nil {
		t.Fatal(err)
	}
	return tenant, sub
}
