package webhook

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// rabbit is the test's exchange (topic) on the shared RabbitMQ, and a
// channel to declare and read with.
type rabbit struct {
	t        *testing.T
	url      string // amqp://guest:guest@host:port/
	exchange string
	ch       *amqp.Channel
}

func newRabbit(t *testing.T) *rabbit {
	t.Helper()
	url := "amqp://guest:guest@" + sharedBroker(t, "rabbitmq").Addr + "/"
	conn, err := amqp.Dial(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	ch, err := conn.Channel()
	if err != nil {
		t.Fatal(err)
	}
	r := &rabbit{t: t, url: url, exchange: "x-" + prefix(), ch: ch}
	if err := ch.ExchangeDeclare(r.exchange, amqp.ExchangeTopic, true, false, false, false, nil); err != nil {
		t.Fatal(err)
	}
	return r
}

// rabbitCtl runs rabbitmqctl do on the shared broker and returns its undo,
// which runs rabbitmqctl undo once: when called, or else when the test ends
// (each call boots an Erlang VM: half a second of CPU).
func rabbitCtl(t *testing.T, do, undo []string) (restore func()) {
	t.Helper()
	broker := sharedBroker(t, "rabbitmq")
	run := func(args []string) {
		t.Helper()
		if out, err := broker.Ctl(args...); err != nil {
			t.Fatalf("rabbitmqctl %v: %v\n%s", args, err, out)
		}
	}
	run(do)
	undone := false
	t.Cleanup(func() {
		if !undone {
			_, _ = broker.Ctl(undo...)
		}
	})
	return func() {
		t.Helper()
		run(undo)
		undone = true
	}
}

// queue declares a queue bound to the exchange with key.
func (r *rabbit) queue(key string) string {
	r.t.Helper()
	q, err := r.ch.QueueDeclare("q-"+prefix(), true, false, false, false, nil)
	if err == nil {
		err = r.ch.QueueBind(q.Name, key, r.exchange, false, nil)
	}
	if err != nil {
		r.t.Fatal(err)
	}
	return q.Name
}

// drain reads every message of queue, in queue order.
func (r *rabbit) drain(queue string) []amqp.Delivery {
	r.t.Helper()
	var out []amqp.Delivery
	for {
		d, ok, err := r.ch.Get(queue, true)
		if err != nil {
			r.t.Fatal(err)
		}
		if !ok {
			return out
		}
		out = append(out, d)
	}
}

// asPublished is an AMQP message as verifyMessage reads it.
func asPublished(d amqp.Delivery) published {
	h := http.Header{}
	for k, v := range d.Headers {
		if s, ok := v.(string); ok {
			h.Set(k, s)
		}
	}
	return published{subject: d.RoutingKey, header: h, body: d.Body, eventID: d.MessageId}
}

// A burst of writes reaches the exchange once per event, persistent, with
// message_id the event id, routed by the template's escaped tenant, type and
// load, in commit order per load, signed with the destination's secret.
func TestRabbitMQBurstArrivesOnceInOrderPerLoad(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := newRabbit(t)
	q := r.queue("acme.#")
	d, secret := e.mustDestination(webhooks.TypeRabbitMQ, r.url, webhooks.Broker{Exchange: r.exchange})
	if d.URL != strings.Replace(r.url, "guest:guest@", "", 1) || d.Broker.RoutingKey != webhooks.DefaultRoutingKey {
		t.Fatalf("stored %s %+v", d.URL, d.Broker)
	}
	loads := []string{"L-1", "L-2", "L.3"}
	want := map[string][]string{}
	types := map[string]string{}
	for i := 0; i < 30; i++ {
		load, typ := loads[i%3], domain.EventTypes[i%2]
		id := e.insertLoadEvent(load, typ)
		want[webhooks.SubjectToken(load)] = append(want[webhooks.SubjectToken(load)], id)
		types[id] = typ
	}
	e.pump()
	msgs := r.drain(q)
	if len(msgs) != 30 {
		t.Fatalf("%d messages, want 30", len(msgs))
	}
	got := map[string][]string{}
	for _, m := range msgs {
		words := strings.Split(m.RoutingKey, ".")
		if len(words) != 3 || words[0] != "acme" || words[1] != webhooks.SubjectToken(types[m.MessageId]) {
			t.Fatalf("routing key %q of %s", m.RoutingKey, m.MessageId)
		}
		if m.DeliveryMode != amqp.Persistent || m.Type != types[m.MessageId] || !strings.HasPrefix(m.ContentType, "application/json") {
			t.Fatalf("properties %+v", m)
		}
		verifyMessage(t, secret, asPublished(m))
		got[words[2]] = append(got[words[2]], m.MessageId)
	}
	for load, ids := range want {
		if strings.Join(got[load], " ") != strings.Join(ids, " ") {
			t.Fatalf("load %s:\n got %v\nwant %v", load, got[load], ids)
		}
	}
	if s := e.statuses(d.ID); s[webhooks.DeliveryDelivered] != 30 {
		t.Fatalf("%v", s)
	}
}

// A message the broker returns as unroutable (mandatory, no queue bound
// for its key) is a failed attempt, retried, never a silent loss: once a
// queue is bound, the retry delivers it.
func TestRabbitMQUnroutableIsAFailedAttempt(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.worker.Schedule = []time.Duration{time.Minute, time.Minute}
	r := newRabbit(t)
	d, _ := e.mustDestination(webhooks.TypeRabbitMQ, r.url, webhooks.Broker{Exchange: r.exchange, RoutingKey: "loads.{load}"})
	id := e.insertLoadEvent("L9", domain.EventLoadChanged)
	e.pump()
	if s := e.statuses(d.ID); s[webhooks.DeliveryPending] != 1 {
		t.Fatalf("after an unroutable publish: %v", s)
	}
	var logged string
	if err := e.db.Bun.QueryRowContext(context.Background(), `SELECT a.error FROM webhook_attempts a
		JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = ?`, d.ID).Scan(&logged); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logged, "unroutable") || !strings.Contains(logged, "loads.L9") {
		t.Fatalf("attempt logged %q", logged)
	}
	q := r.queue("loads.*")
	e.clk.Add(time.Minute)
	e.pump()
	msgs := r.drain(q)
	if len(msgs) != 1 || msgs[0].MessageId != id {
		t.Fatalf("after binding a queue: %d messages", len(msgs))
	}
	if s := e.statuses(d.ID); s[webhooks.DeliveryDelivered] != 1 {
		t.Fatalf("%v", s)
	}
}

// Creating a RabbitMQ destination connects once: wrong credentials or a
// missing exchange are refusals naming the field (unprocessable), a bad
// routing-key template is invalid input, and nothing is stored.
func TestRabbitMQCreationConnectsOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	r := newRabbit(t)
	_, _, err := e.destination(webhooks.TypeRabbitMQ, strings.Replace(r.url, "guest:guest", "guest:wrong", 1), webhooks.Broker{Exchange: r.exchange}, nil)
	if msg := fieldError(t, err, domain.CodeUnprocessable, "credentials"); !strings.Contains(msg, "refused the credentials") {
		t.Fatalf("wrong password: %s", msg)
	}
	_, _, err = e.destination(webhooks.TypeRabbitMQ, r.url, webhooks.Broker{Exchange: "missing-" + r.exchange}, nil)
	if msg := fieldError(t, err, domain.CodeUnprocessable, "exchange"); !strings.Contains(msg, "does not exist") {
		t.Fatalf("missing exchange: %s", msg)
	}
	_, _, err = e.destination(webhooks.TypeRabbitMQ, r.url, webhooks.Broker{Exchange: r.exchange, RoutingKey: "{tenant}.{nope}"}, nil)
	if msg := fieldError(t, err, domain.CodeInvalid, "routingKey"); !strings.Contains(msg, "{nope}") {
		t.Fatalf("template: %s", msg)
	}
	if n := e.count("SELECT count(*) FROM webhooks WHERE tenant_id = ?", e.tenant); n != 0 {
		t.Fatalf("%d destinations stored after refusals", n)
	}
}

// While the broker blocks publishers (a memory alarm: connection.blocked)
// an attempt fails and nothing is lost; once the alarm clears the retry
// delivers. Not parallel: the alarm is the shared broker's.
func TestRabbitMQBlockedConnectionPausesTheDestination(t *testing.T) {
	e := newEnv(t)
	e.worker.Schedule = slices.Repeat([]time.Duration{time.Minute}, 30)
	e.worker.Timeout = 2 * time.Second // a publish the broker holds fails within it
	r := newRabbit(t)
	q := r.queue("#")
	d, _ := e.mustDestination(webhooks.TypeRabbitMQ, r.url, webhooks.Broker{Exchange: r.exchange})
	unblock := rabbitCtl(t, []string{"set_vm_memory_high_watermark", "0"}, []string{"set_vm_memory_high_watermark", "0.4"})
	id := e.insertLoadEvent("B1", domain.EventLoadChanged)
	e.pump()
	if s := e.statuses(d.ID); s[webhooks.DeliveryPending] != 1 {
		t.Fatalf("while blocked: %v", s)
	}
	var logged string
	if err := e.db.Bun.QueryRowContext(context.Background(), `SELECT a.error FROM webhook_attempts a
		JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.webhook_id = ?`, d.ID).Scan(&logged); err != nil {
		t.Fatal(err)
	}
	if logged != BrokerBlocked && logged != NotAcked {
		t.Fatalf("attempt logged %q", logged)
	}
	unblock()
	deadline := time.Now().Add(30 * time.Second)
	for e.statuses(d.ID)[webhooks.DeliveryDelivered] == 0 && time.Now().Before(deadline) {
		e.clk.Add(time.Minute) // each retry is due; the broker unblocks in its own time
		e.pump()
	}
	// At least once: the publish the broker held is let through too.
	msgs := r.drain(q)
	if len(msgs) == 0 {
		t.Fatalf("after the alarm cleared: no message (%v)", e.statuses(d.ID))
	}
	for _, m := range msgs {
		if m.MessageId != id {
			t.Fatalf("message %s", m.MessageId)
		}
	}
}

// The broker stops while writes continue (its connection drops), then
// starts again: every event arrives, in order per load, over a new
// connection. Not parallel: the outage is the shared broker's.
func TestRabbitMQOutageThenEveryEventArrives(t *testing.T) {
	e := newEnv(t)
	e.worker.Schedule = slices.Repeat([]time.Duration{time.Minute}, 30)
	r := newRabbit(t)
	q := r.queue("#")
	d, _ := e.mustDestination(webhooks.TypeRabbitMQ, r.url, webhooks.Broker{Exchange: r.exchange})
	want := []string{e.insertLoadEvent("O1", domain.EventLoadChanged)}
	e.pump() // delivered: the worker holds a connection
	restart := rabbitCtl(t, []string{"stop_app"}, []string{"start_app"})
	for _, load := range []string{"O1", "O2", "O1"} {
		want = append(want, e.insertLoadEvent(load, domain.EventLoadChanged))
	}
	e.pump()
	if s := e.statuses(d.ID); s[webhooks.DeliveryDelivered] != 1 || s[webhooks.DeliveryPending] != 3 {
		t.Fatalf("while the broker is down: %v", s)
	}
	restart()
	deadline := time.Now().Add(60 * time.Second)
	for e.statuses(d.ID)[webhooks.DeliveryDelivered] < 4 && time.Now().Before(deadline) {
		e.clk.Add(time.Minute) // each retry is due; the broker listens again in its own time
		e.pump()
	}
	conn, err := amqp.Dial(r.url) // the test's own connection dropped with the broker
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if r.ch, err = conn.Channel(); err != nil {
		t.Fatal(err)
	}
	byLoad := map[string][]string{}
	for _, m := range r.drain(q) {
		load := m.RoutingKey[strings.LastIndex(m.RoutingKey, ".")+1:]
		byLoad[load] = append(byLoad[load], m.MessageId)
	}
	if strings.Join(byLoad["O1"], " ") != strings.Join([]string{want[0], want[1], want[3]}, " ") ||
		strings.Join(byLoad["O2"], " ") != want[2] {
		t.Fatalf("queue holds %v, want O1 %v and O2 %v", byLoad, []string{want[0], want[1], want[3]}, want[2])
	}
}
