package webhook

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/events"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// Only the webhook's tenant, subsidiary and subscribed types are delivered.
func TestDispatchMatchesTenantSubsidiaryAndType(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	e.active(rcv, domain.EventLoadStatusChanged)
	otherSub := uuid.New()
	e.exec("INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'west')", otherSub, e.tenant)
	otherTenant, otherTenantSub := e.seedTenant("globex")
	e.insertEvent(e.tenant, otherSub, domain.EventLoadStatusChanged, false)
	e.insertEvent(otherTenant, otherTenantSub, domain.EventLoadStatusChanged, false)
	e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	want := e.insertEvent(e.tenant, e.sub, domain.EventLoadStatusChanged, false)
	e.pump()
	if got := rcv.Next(t).Header.Get("X-Service-Event-Id"); got != want {
		t.Fatalf("delivered %s, want %s", got, want)
	}
	rcv.none(t)
	var last int64
	_ = e.db.Bun.QueryRowContext(context.Background(), "SELECT last_seq FROM event_cursors WHERE consumer = 'webhooks'").Scan(&last)
	if max := e.count("SELECT max(seq) FROM events"); last != int64(max) {
		t.Fatalf("cursor %d, want %d", last, max)
	}
}

// An event still in flight is never skipped: while a writer holds an event
// open, a later writer commits (writers do not wait for each other), and the
// dispatcher's cursor cannot pass the open one (storage.Outbox reads only
// below the visibility horizon); after both commit, both are delivered.
func TestDispatcherDoesNotSkipLateCommittingEvent(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	e.active(rcv)
	slow, err := e.db.Bun.BeginTx(context.Background(), &sql.TxOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Rollback() //nolint:errcheck
	lateID := uuid.NewString() + "-0"
	if _, err := slow.ExecContext(context.Background(), `INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload)
		VALUES (?, ?, ?, 'load.changed', ?, ?)`, lateID, e.tenant, e.sub, uuid.New(), `{"id":"`+lateID+`","type":"load.changed","version":"v1","data":{}}`); err != nil {
		t.Fatal(err)
	}
	early := make(chan string, 1)
	go func() { early <- e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false) }()
	var earlyID string
	select {
	case earlyID = <-early:
	case <-time.After(10 * time.Second):
		t.Fatal("the second writer waited for the open one")
	}
	if n, err := e.dispatcher.RunOnce(context.Background()); err != nil || n != 0 {
		t.Fatalf("dispatched %d events while an older one was open: %v", n, err)
	}
	if err := slow.Commit(); err != nil {
		t.Fatal(err)
	}
	dbtest.WaitOutboxFinal(t, e.db)
	if n, err := e.dispatcher.RunOnce(context.Background()); err != nil || n != 2 {
		t.Fatalf("dispatched %d events, want 2: %v", n, err)
	}
	for _, id := range []string{earlyID, lateID} {
		if n := e.count("SELECT count(*) FROM webhook_deliveries WHERE event_id = ?", id); n != 1 {
			t.Fatalf("event %s has %d deliveries", id, n)
		}
	}
}

// Two dispatchers and two workers on one database: one event, one delivery
// row, one HTTP delivery.
func TestConcurrentDispatchersAndWorkersDeliverOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	e.active(rcv)
	const events = 20
	for i := 0; i < events; i++ {
		e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	}
	dbtest.WaitOutboxFinal(t, e.db)
	other := &Dispatcher{Store: e.store, Now: e.clk.Now, Batch: 3}
	e.dispatcher.Batch = 3
	start := make(chan struct{})
	var wg sync.WaitGroup
	for _, d := range []*Dispatcher{e.dispatcher, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			if _, err := d.RunOnce(context.Background()); err != nil {
				t.Error(err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if n := e.count("SELECT count(*) FROM webhook_deliveries"); n != events {
		t.Fatalf("%d delivery rows for %d events", n, events)
	}
	w2 := &Worker{Store: e.store, Client: e.worker.Client, AllowInsecure: true, Now: e.clk.Now, Batch: 4}
	e.worker.Batch = 4
	start = make(chan struct{})
	for _, w := range []*Worker{e.worker, w2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for {
				n, err := w.RunOnce(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				if n == 0 {
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	seen := map[string]int{}
	for rcv.pending() > 0 {
		seen[rcv.Next(t).Header.Get("X-Service-Event-Id")]++
	}
	if len(seen) != events {
		t.Fatalf("%d distinct events delivered, want %d", len(seen), events)
	}
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("event %s delivered %d times", id, n)
		}
	}
	if n := e.count("SELECT count(*) FROM webhook_attempts"); n != events {
		t.Fatalf("%d attempts logged, want %d", n, events)
	}
}

// Running, the dispatcher is woken by the events relay (the instance's one
// LISTEN): a committed event is delivered without anyone calling RunOnce and
// with every poll far beyond the test's deadline.
func TestRunningDispatcherAndWorkerDeliverOnRelayWake(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	rcv := newReceiver(t)
	e.active(rcv)
	relay := &events.Relay{Outbox: &storage.Outbox{DB: e.db}, Hub: events.NewHub(), Poll: time.Hour,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	wake, stop := relay.Wake()
	defer stop()
	e.dispatcher.Wake = wake
	e.dispatcher.Poll = time.Hour
	e.worker.Poll = time.Hour
	e.dispatcher.OnDispatched = e.worker.Wake
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(3)
	go func() { defer wg.Done(); _ = relay.Run(ctx) }()
	go func() { defer wg.Done(); _ = e.dispatcher.Run(ctx) }()
	go func() { defer wg.Done(); _ = e.worker.Run(ctx) }()
	defer func() { cancel(); wg.Wait() }()
	select {
	case <-relay.Ready():
	case <-time.After(10 * time.Second):
		t.Fatal("relay not ready")
	}
	want := e.insertEvent(e.tenant, e.sub, domain.EventLoadChanged, false)
	for {
		d := rcv.Next(t)
		if d.Header.Get("X-Service-Event-Id") == want {
			return
		}
	}
}
