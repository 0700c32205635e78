package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/haulgraph/haulgraph/brokertest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// The brokers the package's tests share, started on first use (RabbitMQ
// takes many seconds to boot) and stopped once every test has run. A test
// that stops its broker (an outage) starts one of its own.
var shared struct {
	mu        sync.Mutex
	procs     map[string]*brokertest.Process
	dir       string
	startErrs map[string]error
}

func TestMain(m *testing.M) {
	code := m.Run()
	for _, p := range shared.procs {
		p.Close()
	}
	if shared.dir != "" {
		_ = os.RemoveAll(shared.dir)
	}
	os.Exit(code)
}

// sharedBroker is the package's broker of kind ("nats" or "rabbitmq").
func sharedBroker(t *testing.T, kind string) *brokertest.Process {
	t.Helper()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if p := shared.procs[kind]; p != nil {
		return p
	}
	if err := shared.startErrs[kind]; err != nil {
		t.Fatal(err)
	}
	if shared.dir == "" {
		d, err := os.MkdirTemp("", "haulgraph-brokers-")
		if err != nil {
			t.Fatal(err)
		}
		shared.dir = d
	}
	var p *brokertest.Process
	var err error
	timeout := 10 * time.Second
	if kind == "rabbitmq" {
		p, err = brokertest.RabbitMQ(shared.dir)
		timeout = 120 * time.Second // Erlang and the database boot
	} else {
		p, err = brokertest.NATS(shared.dir)
	}
	if err == nil {
		err = p.Start(timeout)
	}
	if err != nil {
		if shared.startErrs == nil {
			shared.startErrs = map[string]error{}
		}
		shared.startErrs[kind] = err
		t.Fatal(err)
	}
	if shared.procs == nil {
		shared.procs = map[string]*brokertest.Process{}
	}
	shared.procs[kind] = p
	return p
}

// ownNATS is a nats-server of the test's alone (it may stop it), started.
func ownNATS(t *testing.T, args ...string) *brokertest.Process {
	t.Helper()
	p, err := brokertest.NATS(t.TempDir(), args...)
	if err == nil {
		err = p.Start(10 * time.Second)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// natsStream creates a stream capturing subjects on the server at addr and
// returns it with the test's connection.
func natsStream(t *testing.T, addr string, opts []nats.Option, subjects ...string) jetstream.Stream {
	t.Helper()
	nc, err := nats.Connect("nats://"+addr, append(opts, nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "S" + uuid.NewString()[:8], Subjects: subjects, Storage: jetstream.FileStorage})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// published is one message as a consumer reads it.
type published struct {
	subject string
	header  http.Header
	body    []byte
	eventID string
}

// streamMessages reads every message of s, in stream order.
func streamMessages(t *testing.T, s jetstream.Stream) []published {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []published
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && info.State.Msgs > 0; seq++ {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		for k, v := range m.Header {
			h.Set(k, v[0])
		}
		out = append(out, published{subject: m.Subject, header: h, body: m.Data, eventID: h.Get("Nats-Msg-Id")})
	}
	return out
}

// verify checks a message's Standard Webhooks signature with the
// destination's secret, as a consumer on a shared broker does, and that
// the body is the event's envelope.
func verifyMessage(t *testing.T, secret string, m published) {
	t.Helper()
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		t.Fatal(err)
	}
	if err := wh.Verify(m.body, m.header); err != nil {
		t.Fatalf("signature of %s: %v (headers %v)", m.eventID, err, m.header)
	}
	var env struct {
		ID, Type string
	}
	if err := json.Unmarshal(m.body, &env); err != nil || env.ID != m.header.Get("webhook-id") {
		t.Fatalf("body %s: %v", m.body, err)
	}
}

// insertLoadEvent writes an outbox event of load (its LoadNumber) and
// returns its id.
func (e *env) insertLoadEvent(load, typ string) string {
	e.t.Helper()
	id := uuid.NewString() + "-0"
	payload, _ := json.Marshal(map[string]any{"id": id, "type": typ, "timestamp": time.Now().Format(time.RFC3339), "version": "v1",
		"data": map[string]any{"load": map[string]any{"Id": uuid.NewString(), "LoadNumber": load, "Status": "Covered"}}})
	e.exec("INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload) VALUES (?, ?, ?, ?, ?, ?)",
		id, e.tenant, e.sub, typ, uuid.New(), string(payload))
	return id
}

// destination creates a broker destination for the env's subsidiary.
func (e *env) destination(t webhooks.Type, url string, b webhooks.Broker, creds *webhooks.Credentials) (*webhooks.Webhook, string, error) {
	name := "broker"
	scheme := webhooks.SchemeStandardWebhooks
	return e.svc.Create(e.ctx, webhooks.Input{Name: &name, URL: &url, EventTypes: domain.EventTypes, SubsidiaryID: &e.sub,
		Type: &t, Broker: &b, Credentials: creds, SignatureScheme: &scheme})
}

// jetStreamDestination is an Active JetStream destination on the shared
// server, with a stream of its own capturing its subjects.
func (e *env) jetStreamDestination() (*webhooks.Webhook, jetstream.Stream) {
	e.t.Helper()
	addr := sharedBroker(e.t, "nats").Addr
	p := prefix()
	stream := natsStream(e.t, addr, nil, p+".>")
	d, _ := e.mustDestination(webhooks.TypeNATSJetStream, "nats://"+addr, webhooks.Broker{SubjectPrefix: p})
	return d, stream
}

// mustDestination is destination that must succeed, Active.
func (e *env) mustDestination(t webhooks.Type, url string, b webhooks.Broker) (*webhooks.Webhook, string) {
	e.t.Helper()
	w, secret, err := e.destination(t, url, b, nil)
	if err != nil {
		e.t.Fatalf("create %s: %v", t, err)
	}
	if w.State != webhooks.WebhookActive {
		e.t.Fatalf("created %s", w.State)
	}
	return w, secret
}

// statuses counts the destination's deliveries by status.
func (e *env) statuses(id uuid.UUID) map[string]int {
	e.t.Helper()
	out := map[string]int{}
	for _, s := range []string{webhooks.DeliveryPending, webhooks.DeliveryDelivered, webhooks.DeliveryFailed} {
		out[s] = e.count("SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ? AND status = ?", id, s)
	}
	return out
}

// fieldError is err's messages for field, or fails.
func fieldError(t *testing.T, err error, code domain.Code, field string) string {
	t.Helper()
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != code || len(de.Fields[field]) == 0 {
		t.Fatalf("want a %s error naming %s, got %v", code, field, err)
	}
	return fmt.Sprint(de.Fields[field])
}
