package webhook

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// prefix is a subject prefix of the test's alone on a shared server.
func prefix() string { return "hg" + strings.ReplaceAll(uuid.NewString()[:8], "-", "") }

// A burst of writes reaches each of two JetStream destinations once per
// event, in commit order per load, on subjects of four tokens after the
// prefix (the dotted event type escaped into one), signed with each
// destination's own secret, with Nats-Msg-Id the event id.
func TestJetStreamBurstArrivesOnceInOrderPerLoad(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	addr := sharedBroker(t, "nats").Addr
	p1, p2 := prefix(), prefix()
	// A stream each: JetStream drops a message whose Nats-Msg-Id it holds,
	// so two destinations sharing a stream would see one copy per event.
	streams := []jetstream.Stream{natsStream(t, addr, nil, p1+".>"), natsStream(t, addr, nil, p2+".>")}
	d1, secret1 := e.mustDestination(webhooks.TypeNATSJetStream, "nats://"+addr, webhooks.Broker{SubjectPrefix: p1})
	d2, secret2 := e.mustDestination(webhooks.TypeNATSJetStream, "nats://"+addr, webhooks.Broker{SubjectPrefix: p2})
	loads := []string{"L-1", "L-2", "L.3*>"}
	want := map[string][]string{}
	types := map[string]string{}
	for i := 0; i < 30; i++ {
		load, typ := loads[i%3], domain.EventTypes[i%2]
		id := e.insertLoadEvent(load, typ)
		want[load] = append(want[load], id)
		types[id] = typ
	}
	e.pump()

	msgs := append(streamMessages(t, streams[0]), streamMessages(t, streams[1])...)
	if len(msgs) != 60 {
		t.Fatalf("%d messages, want 30 per destination", len(msgs))
	}
	got := map[string]map[string][]string{p1: {}, p2: {}}
	for _, m := range msgs {
		tokens := strings.Split(m.subject, ".")
		if len(tokens) != 4 || tokens[1] != "acme" || tokens[2] != webhooks.SubjectToken(types[m.eventID]) {
			t.Fatalf("subject %q of %s (%s)", m.subject, m.eventID, types[m.eventID])
		}
		secret := secret1
		if tokens[0] == p2 {
			secret = secret2
		}
		verifyMessage(t, secret, m)
		if m.header.Get("webhook-id") != m.eventID || m.header.Get("traceparent") == "" ||
			!strings.HasPrefix(m.header.Get("content-type"), "application/json") {
			t.Fatalf("headers %v", m.header)
		}
		got[tokens[0]][tokens[3]] = append(got[tokens[0]][tokens[3]], m.eventID)
	}
	for _, p := range []string{p1, p2} {
		for _, load := range loads {
			if g, w := strings.Join(got[p][webhooks.SubjectToken(load)], " "), strings.Join(want[load], " "); g != w {
				t.Fatalf("%s load %s:\n got %s\nwant %s", p, load, g, w)
			}
		}
	}
	for _, d := range []uuid.UUID{d1.ID, d2.ID} {
		if s := e.statuses(d); s[webhooks.DeliveryDelivered] != 30 {
			t.Fatalf("deliveries %v", s)
		}
	}
}

// The broker is down while writes continue: the first event of each load is
// attempted and waits for its retry, the later ones of its load wait behind
// it unattempted; once the broker is back every event arrives, in order.
func TestJetStreamOutageHoldsTheLoadThenDeliversEverything(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.worker.Schedule = []time.Duration{time.Minute, time.Minute, time.Minute}
	srv := ownNATS(t)
	p := prefix()
	stream := natsStream(t, srv.Addr, nil, p+".>")
	d, _ := e.mustDestination(webhooks.TypeNATSJetStream, "nats://"+srv.Addr, webhooks.Broker{SubjectPrefix: p})
	srv.Stop()

	var l1, l2 []string
	for i := 0; i < 3; i++ {
		l1 = append(l1, e.insertLoadEvent("L1", domain.EventLoadChanged))
		l2 = append(l2, e.insertLoadEvent("L2", domain.EventLoadChanged))
	}
	e.pump()
	attempted := e.count(`SELECT count(DISTINCT d.event_id) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
		WHERE d.webhook_id = ?`, d.ID)
	if attempted != 2 {
		t.Fatalf("%d events attempted while the broker is down, want the first of each load", attempted)
	}
	var logged string
	e.db.Bun.QueryRowContext(context.Background(), `SELECT a.error FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id
		WHERE d.webhook_id = ? LIMIT 1`, d.ID).Scan(&logged)
	if logged != NoBroker {
		t.Fatalf("attempt logged %q", logged)
	}
	if w := e.webhook(d.ID); w.FailingSince == nil || w.State != webhooks.WebhookActive {
		t.Fatalf("after failed attempts: %s failing since %v", w.State, w.FailingSince)
	}
	l1 = append(l1, e.insertLoadEvent("L1", domain.EventLoadChanged)) // writes continue
	e.pump()

	if err := srv.Start(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	e.clk.Add(time.Minute)
	e.pump()
	if s := e.statuses(d.ID); s[webhooks.DeliveryDelivered] != 7 {
		t.Fatalf("after the broker is back: %v", s)
	}
	got := map[string][]string{}
	for _, m := range streamMessages(t, stream) {
		load := m.subject[strings.LastIndex(m.subject, ".")+1:]
		got[load] = append(got[load], m.eventID)
	}
	if strings.Join(got["L1"], " ") != strings.Join(l1, " ") || strings.Join(got["L2"], " ") != strings.Join(l2, " ") {
		t.Fatalf("stream holds %v, want L1 %v L2 %v", got, l1, l2)
	}
	if w := e.webhook(d.ID); w.FailingSince != nil {
		t.Fatalf("still failing since %v", w.FailingSince)
	}
}

// An instance killed after publishing, before recording, loses nothing:
// its claims' leases expire, the events are published again with the same
// Nats-Msg-Id, and JetStream keeps one copy of each.
func TestJetStreamKilledMidPublishDeliversAtLeastOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d, stream := e.jetStreamDestination()
	ids := []string{e.insertLoadEvent("LX", domain.EventLoadChanged), e.insertLoadEvent("LY", domain.EventLoadChanged)}
	dbtest.WaitOutboxFinal(t, e.db)
	if _, err := e.dispatcher.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	e.worker.init()
	claimed, err := e.worker.svc.Claim(context.Background(), 10)
	if err != nil || len(claimed) != 2 {
		t.Fatalf("claimed %d: %v", len(claimed), err)
	}
	// The dying instance published the first, and died before recording.
	if _, err := e.worker.send(context.Background(), claimed[0], uuid.New()); err != nil {
		t.Fatal(err)
	}
	e.pump()
	if s := e.statuses(d.ID); s[webhooks.DeliveryPending] != 2 {
		t.Fatalf("leased deliveries taken by another worker: %v", s)
	}
	e.clk.Add(webhooks.DeliveryTimeout + time.Minute) // the leases expire
	e.pump()
	if s := e.statuses(d.ID); s[webhooks.DeliveryDelivered] != 2 {
		t.Fatalf("%v", s)
	}
	seen := map[string]int{}
	for _, m := range streamMessages(t, stream) {
		seen[m.eventID]++
	}
	for _, id := range ids {
		if seen[id] != 1 {
			t.Fatalf("event %s in the stream %d times", id, seen[id])
		}
	}
	if len(seen) != 2 {
		t.Fatalf("%d events in the stream", len(seen))
	}
}

// Two instances' workers on one database share the deliveries: every event
// reaches the stream, none is attempted twice.
func TestJetStreamTwoWorkersSkipNone(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d, stream := e.jetStreamDestination()
	for i := 0; i < 40; i++ {
		e.insertLoadEvent("L"+string(rune('0'+i%4)), domain.EventLoadChanged)
	}
	dbtest.WaitOutboxFinal(t, e.db)
	if _, err := e.dispatcher.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	other := &Worker{Store: e.store, AllowInsecure: true, Now: e.clk.Now, Brokers: &Brokers{AllowLoopback: true}, Batch: 4}
	t.Cleanup(other.Brokers.Close)
	e.worker.Batch = 4
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, w := range []*Worker{e.worker, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && e.statuses(d.ID)[webhooks.DeliveryPending] > 0 {
				if _, err := w.RunOnce(ctx); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if s := e.statuses(d.ID); s[webhooks.DeliveryDelivered] != 40 {
		t.Fatalf("%v", s)
	}
	if n := e.count(`SELECT count(*) FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = ?`, d.ID); n != 40 {
		t.Fatalf("%d attempts for 40 events", n)
	}
	if n := len(streamMessages(t, stream)); n != 40 {
		t.Fatalf("%d messages", n)
	}
}

// A destination whose broker stays down follows the webhooks' policy: its
// deliveries fail once the retry chain is spent, it is disabled after
// failing for AutoDisableAfter, and once the broker is back it is enabled
// (connected to again), its failed deliveries recovered and delivered; a
// redelivery within the duplicate window is one message still.
func TestJetStreamBrokerStaysDownThenRecovers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.worker.Schedule = []time.Duration{time.Minute}
	srv := ownNATS(t)
	p := prefix()
	stream := natsStream(t, srv.Addr, nil, p+".>")
	created := e.clk.Now()
	d, _ := e.mustDestination(webhooks.TypeNATSJetStream, "nats://"+srv.Addr, webhooks.Broker{SubjectPrefix: p})
	srv.Stop()
	first := e.insertLoadEvent("L1", domain.EventLoadChanged)
	e.pump()
	e.clk.Add(time.Minute)
	e.pump()
	if s := e.statuses(d.ID); s[webhooks.DeliveryFailed] != 1 {
		t.Fatalf("after the chain: %v", s)
	}
	e.clk.Add(webhooks.AutoDisableAfter)
	e.insertLoadEvent("L2", domain.EventLoadChanged)
	e.pump()
	w := e.webhook(d.ID)
	if w.State != webhooks.WebhookDisabled || !strings.Contains(w.StateReason, "5 days") {
		t.Fatalf("after 5 days of failures: %s %q", w.State, w.StateReason)
	}
	if _, err := e.svc.Enable(e.ctx, d.ID); err != nil || e.webhook(d.ID).State != webhooks.WebhookFailedVerification {
		t.Fatalf("enable with the broker down: %v %s", err, e.webhook(d.ID).State)
	}

	if err := srv.Start(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	if w, err := e.svc.Enable(e.ctx, d.ID); err != nil || w.State != webhooks.WebhookActive {
		t.Fatalf("enable: %v %+v", err, w)
	}
	// The first delivery failed; the second waits for its retry.
	if n, err := e.svc.Recover(e.ctx, d.ID, created); err != nil || n != 1 {
		t.Fatalf("recovered %d: %v", n, err)
	}
	e.clk.Add(time.Minute)
	e.pump()
	if s := e.statuses(d.ID); s[webhooks.DeliveryDelivered] != 2 {
		t.Fatalf("after recovery: %v", s)
	}
	if _, err := e.svc.Redeliver(e.ctx, d.ID, first); err != nil {
		t.Fatal(err)
	}
	e.pump()
	if s := e.statuses(d.ID); s[webhooks.DeliveryDelivered] != 3 {
		t.Fatalf("after redelivery: %v", s)
	}
	if n := len(streamMessages(t, stream)); n != 2 {
		t.Fatalf("%d messages: the redelivery within the duplicate window was not dropped", n)
	}
}

// Creating a JetStream destination connects once: wrong credentials, no
// stream for the subjects or no broker at the address are refusals naming
// the field (unprocessable), a seed that is not one is invalid input, and
// nothing is stored; the credentials are sealed and never shown.
func TestJetStreamCreationConnectsOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	srv := ownNATS(t, "--user", "hg", "--pass", "s3cret-pass")
	p := prefix()
	natsStream(t, srv.Addr, []nats.Option{nats.UserInfo("hg", "s3cret-pass")}, p+".>")
	url := "nats://" + srv.Addr
	_, _, err := e.destination(webhooks.TypeNATSJetStream, url, webhooks.Broker{SubjectPrefix: p}, &webhooks.Credentials{Username: "hg", Password: "wrong"})
	if msg := fieldError(t, err, domain.CodeUnprocessable, "credentials"); !strings.Contains(msg, "refused the credentials") {
		t.Fatalf("wrong password: %s", msg)
	}
	_, _, err = e.destination(webhooks.TypeNATSJetStream, url, webhooks.Broker{SubjectPrefix: "nostream"}, &webhooks.Credentials{Username: "hg", Password: "s3cret-pass"})
	if msg := fieldError(t, err, domain.CodeUnprocessable, "subjectPrefix"); !strings.Contains(msg, "nostream.acme.>") {
		t.Fatalf("no stream: %s", msg)
	}
	_, _, err = e.destination(webhooks.TypeNATSJetStream, url, webhooks.Broker{SubjectPrefix: p}, &webhooks.Credentials{Creds: "not-a-seed"})
	if msg := fieldError(t, err, domain.CodeInvalid, "credentials"); !strings.Contains(msg, "not a NATS creds file") {
		t.Fatalf("malformed seed: %s", msg)
	}
	closed := ownNATS(t)
	closed.Stop()
	_, _, err = e.destination(webhooks.TypeNATSJetStream, "nats://"+closed.Addr, webhooks.Broker{SubjectPrefix: p}, nil)
	if msg := fieldError(t, err, domain.CodeUnprocessable, "url"); !strings.Contains(msg, "could not connect") {
		t.Fatalf("no broker: %s", msg)
	}
	if n := e.count("SELECT count(*) FROM webhooks WHERE tenant_id = ?", e.tenant); n != 0 {
		t.Fatalf("%d destinations stored after refusals", n)
	}
	// Credentials in the URL are taken out of it and sealed.
	w, _, err := e.destination(webhooks.TypeNATSJetStream, "nats://hg:s3cret-pass@"+srv.Addr, webhooks.Broker{SubjectPrefix: p}, nil)
	if err != nil || w.State != webhooks.WebhookActive || w.URL != url {
		t.Fatalf("create: %v %+v", err, w)
	}
	if n := e.count(`SELECT count(*) FROM webhooks WHERE id = ? AND url NOT LIKE '%s3cret%' AND broker::text NOT LIKE '%s3cret%'
		AND position('s3cret-pass'::bytea in credentials_ciphertext) = 0`, w.ID); n != 1 {
		t.Fatal("the password is stored in the clear")
	}
	creds, err := e.store.DestinationCredentials(context.Background(), e.tenant, w.ID)
	if err != nil || creds.Password != "s3cret-pass" {
		t.Fatalf("sealed credentials: %v", err)
	}
	// The webhook routes show webhooks alone.
	hooksOnly := *e.svc
	hooksOnly.AllTypes = false
	if ws, err := hooksOnly.List(e.ctx); err != nil || len(ws) != 0 {
		t.Fatalf("webhook list shows %d: %v", len(ws), err)
	}
	if _, err := hooksOnly.Get(e.ctx, w.ID); domain.CodeOf(err) != domain.CodeNotFound {
		t.Fatalf("webhook get of a destination: %v", err)
	}
	if ws, err := e.svc.List(e.ctx); err != nil || len(ws) != 1 || ws[0].Type != webhooks.TypeNATSJetStream || ws[0].Broker.SubjectPrefix != p {
		t.Fatalf("destination list: %v %+v", err, ws)
	}
}

// Every address a broker connection dials passes the webhook address
// rules: without the development flag a loopback broker is refused at
// dial time, whatever the URL said.
func TestBrokerDialRefusesInternalAddresses(t *testing.T) {
	t.Parallel()
	addr := sharedBroker(t, "nats").Addr
	b := &Brokers{}
	defer b.Close()
	err := b.Probe(context.Background(), webhooks.Target{Type: webhooks.TypeNATSJetStream, URL: "nats://" + addr,
		Broker: webhooks.Broker{SubjectPrefix: "x"}, TenantSlug: "acme"})
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("probe of a loopback broker: %v", err)
	}
}

// A delivery queued behind an earlier one of its load waits without a due
// time; should the earlier one finish without releasing it (a dispatch
// racing the record), the worker's periodic release makes it due.
func TestWaitingDeliveryIsReleasedWhenItsLoadIsFree(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d, stream := e.jetStreamDestination()
	first, second := e.insertLoadEvent("L1", domain.EventLoadChanged), e.insertLoadEvent("L1", domain.EventLoadChanged)
	dbtest.WaitOutboxFinal(t, e.db)
	if _, err := e.dispatcher.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := e.count("SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ? AND next_attempt_at IS NULL", d.ID, second); n != 1 {
		t.Fatal("the second event of the load is due while the first is pending")
	}
	// The first finishes elsewhere, its release lost.
	e.exec("UPDATE webhook_deliveries SET status = 'Delivered' WHERE webhook_id = ? AND event_id = ?", d.ID, first)
	e.pump()
	if n := len(streamMessages(t, stream)); n != 0 {
		t.Fatalf("%d messages before the release", n)
	}
	if n, err := e.store.ReleaseWaiting(context.Background(), e.clk.Now()); err != nil || n != 1 {
		t.Fatalf("released %d: %v", n, err)
	}
	e.pump()
	if msgs := streamMessages(t, stream); len(msgs) != 1 || msgs[0].eventID != second {
		t.Fatalf("after the release: %v", msgs)
	}
}

// A redelivery of an event of a load finishes while the head of that load
// is still retrying: the delivery waiting behind the head stays waiting
// (two of one load are never sent at once, out of order).
func TestRedeliveryReleasesNothingWhileItsLoadIsBusy(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d, stream := e.jetStreamDestination()
	old := e.insertLoadEvent("L1", domain.EventLoadChanged)
	e.pump()
	head, behind := e.insertLoadEvent("L1", domain.EventLoadChanged), e.insertLoadEvent("L1", domain.EventLoadChanged)
	dbtest.WaitOutboxFinal(t, e.db)
	if _, err := e.dispatcher.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	// The head failed once and retries in an hour.
	e.exec("UPDATE webhook_deliveries SET attempt = 1, next_attempt_at = ? WHERE webhook_id = ? AND event_id = ?",
		e.clk.Now().Add(time.Hour), d.ID, head)
	if _, err := e.svc.Redeliver(e.ctx, d.ID, old); err != nil {
		t.Fatal(err)
	}
	e.pump()
	if n := e.count("SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ? AND status = 'Delivered'", d.ID, old); n != 2 {
		t.Fatalf("the redelivery was not delivered (%d deliveries of the event delivered)", n)
	}
	if n := e.count("SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ? AND status = 'Pending' AND next_attempt_at IS NULL",
		d.ID, behind); n != 1 {
		t.Fatal("the delivery behind the retrying head was released by the redelivery")
	}
	for _, m := range streamMessages(t, stream) {
		if m.eventID != old {
			t.Fatalf("%s published while the head of its load retries", m.eventID)
		}
	}
}

// A recovered delivery of a load whose later event is still retrying waits
// behind it; the periodic release leaves it waiting while that one is
// Pending and releases it once it finished.
func TestRecoveredDeliveryWaitsBehindItsBusyLoad(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	d, _ := e.jetStreamDestination()
	since := e.clk.Now().Add(-time.Hour)
	dispatch := func() {
		dbtest.WaitOutboxFinal(t, e.db)
		if _, err := e.dispatcher.RunOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	failed := e.insertLoadEvent("L1", domain.EventLoadChanged)
	dispatch()
	e.exec("UPDATE webhook_deliveries SET status = 'Failed', attempt = 1, next_attempt_at = NULL WHERE webhook_id = ? AND event_id = ?", d.ID, failed)
	retrying := e.insertLoadEvent("L1", domain.EventLoadChanged)
	dispatch()
	e.exec("UPDATE webhook_deliveries SET attempt = 1, next_attempt_at = ? WHERE webhook_id = ? AND event_id = ?",
		e.clk.Now().Add(time.Hour), d.ID, retrying)
	if n, err := e.svc.Recover(e.ctx, d.ID, since); err != nil || n != 1 {
		t.Fatalf("recovered %d: %v", n, err)
	}
	waiting := func() int {
		return e.count("SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND event_id = ? AND status = 'Pending' AND next_attempt_at IS NULL",
			d.ID, failed)
	}
	if waiting() != 1 {
		t.Fatal("the recovered delivery is due while its load's later event retries")
	}
	if n, err := e.store.ReleaseWaiting(context.Background(), e.clk.Now()); err != nil || n != 0 || waiting() != 1 {
		t.Fatalf("released %d (%v) while the load is busy", n, err)
	}
	e.exec("UPDATE webhook_deliveries SET status = 'Delivered', next_attempt_at = NULL WHERE webhook_id = ? AND event_id = ?", d.ID, retrying)
	if n, err := e.store.ReleaseWaiting(context.Background(), e.clk.Now()); err != nil || n != 1 || waiting() != 0 {
		t.Fatalf("released %d (%v) once the load is free", n, err)
	}
}
