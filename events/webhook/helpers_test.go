package webhook

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/secretbox"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/testkit"
)

const testKey = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="

// clock is a settable test clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type env struct {
	t          *testing.T
	db         *storage.DB
	store      *storage.WebhookStore
	svc        *webhooks.Service
	worker     *Worker
	dispatcher *Dispatcher
	clk        *clock
	tenant     uuid.UUID
	sub        uuid.UUID
	ctx        context.Context // carries a principal with webhook:manage
}

func newEnv(t *testing.T) *env {
	t.Helper()
	db := dbtest.New(t)
	box, err := secretbox.New(testKey)
	if err != nil {
		t.Fatal(err)
	}
	store := storage.NewWebhookStore(db, box)
	clk := &clock{now: time.Now().Truncate(time.Second)}
	client := NewClient(ClientOptions{AllowLoopback: true})
	e := &env{t: t, db: db, store: store, clk: clk}
	brokers := &Brokers{AllowLoopback: true}
	t.Cleanup(brokers.Close)
	e.svc = &webhooks.Service{Store: store, Challenger: &Challenger{Client: client, AllowInsecure: true}, AllowInsecureURLs: true, Now: clk.Now,
		AllTypes: true, Destinations: store, Prober: brokers}
	e.worker = &Worker{Store: store, Client: client, AllowInsecure: true, Now: clk.Now, Schedule: []time.Duration{0, 0, 0}, Brokers: brokers}
	e.dispatcher = &Dispatcher{Store: store, Now: clk.Now}
	e.tenant, e.sub = e.seedTenant("acme")
	e.ctx = e.as(e.tenant)
	return e
}

func (e *env) as(tenant uuid.UUID) context.Context {
	return domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: tenant, ClientID: "c", Scopes: []domain.Scope{domain.ScopeWebhookManage}})
}

func (e *env) seedTenant(slug string) (uuid.UUID, uuid.UUID) {
	tenant, sub := uuid.New(), uuid.New()
	e.exec("INSERT INTO tenants (id, slug, name) VALUES (?, ?, ?)", tenant, slug, slug)
	e.exec("INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'main')", sub, tenant)
	return tenant, sub
}

func (e *env) exec(q string, args ...any) {
	e.t.Helper()
	if err := e.db.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
}

func (e *env) count(q string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.db.Bun.QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", q, err)
	}
	return n
}

// insertEvent writes an outbox row as the load-write path does; it returns
// the event id.
func (e *env) insertEvent(tenant, sub uuid.UUID, typ string, withDiff bool) string {
	e.t.Helper()
	id := uuid.NewString() + "-0"
	data := map[string]any{"load": map[string]any{"Id": uuid.NewString(), "Status": "Covered"}}
	if withDiff {
		data["diff"] = map[string]any{
			"changes":            []any{map[string]any{"kind": "StatusChanged"}},
			"previousAttributes": map[string]any{"Status": "Open"},
		}
	}
	payload, _ := json.Marshal(map[string]any{"id": id, "type": typ, "timestamp": time.Now().Format(time.RFC3339), "version": "v1", "data": data})
	e.exec("INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload) VALUES (?, ?, ?, ?, ?, ?)",
		id, tenant, sub, typ, uuid.New(), string(payload))
	return id
}

// create makes a webhook on rcv for the env's subsidiary.
func (e *env) create(url string, types ...string) (*webhooks.Webhook, string) {
	e.t.Helper()
	name := "erp"
	if len(types) == 0 {
		types = []string{domain.EventLoadChanged}
	}
	w, secret, err := e.svc.Create(e.ctx, webhooks.Input{Name: &name, URL: &url, EventTypes: types, SubsidiaryID: &e.sub})
	if err != nil {
		e.t.Fatalf("create: %v", err)
	}
	return w, secret
}

// active creates a webhook and enables it against rcv (which verifies).
func (e *env) active(rcv *receiver, types ...string) (*webhooks.Webhook, string) {
	e.t.Helper()
	w, secret := e.create(rcv.URL(), types...)
	w, err := e.svc.Enable(e.ctx, w.ID)
	if err != nil || w.State != webhooks.WebhookActive {
		e.t.Fatalf("enable: %v %+v", err, w)
	}
	rcv.NextChallenge(e.t)
	return w, secret
}

// pump dispatches the outbox and runs the worker until nothing is due.
func (e *env) pump() {
	e.t.Helper()
	dbtest.WaitOutboxFinal(e.t, e.db)
	if _, err := e.dispatcher.RunOnce(context.Background()); err != nil {
		e.t.Fatalf("dispatch: %v", err)
	}
	for {
		n, err := e.worker.RunOnce(context.Background())
		if err != nil {
			e.t.Fatalf("worker: %v", err)
		}
		if n == 0 {
			return
		}
	}
}

func (e *env) webhook(id uuid.UUID) *webhooks.Webhook {
	e.t.Helper()
	w, err := e.svc.Get(e.ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	return w
}

// receiver is testkit's receiver at /hooks, its deliveries answered with
// the status deliver returns (200 while none is set).
type receiver struct {
	*testkit.Receiver
	deliver atomic.Pointer[func(n int) int]
	n       atomic.Int32
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{Receiver: testkit.NewReceiver(t)}
	r.Answer(func(w http.ResponseWriter, _ testkit.Delivery) {
		n, status := int(r.n.Add(1)), http.StatusOK
		if f := r.deliver.Load(); f != nil {
			status = (*f)(n)
		}
		w.WriteHeader(status)
	})
	return r
}

func (r *receiver) URL() string { return r.Receiver.URL + "/hooks" }

func (r *receiver) onVerify(f func(w http.ResponseWriter, challenge string)) { r.AnswerChallenge(f) }
func (r *receiver) onDeliver(f func(n int) int)                              { r.deliver.Store(&f) }

// pending is how many deliveries Next has not returned yet.
func (r *receiver) pending() int {
	n, _ := r.Untaken()
	return n
}

// none asserts nothing was delivered (everything is synchronous in pump).
func (r *receiver) none(t *testing.T) {
	t.Helper()
	if n := r.pending(); n > 0 {
		t.Fatalf("unexpected delivery: %s", r.Next(t).Body)
	}
}

func splitHostPort(u string) (string, string, error) {
	parsed, err := url.Parse(u)
	if err != nil {
		return "", "", err
	}
	return net.SplitHostPort(parsed.Host)
}

func poolOf(srv *httptest.Server) *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(srv.Certificate())
	return p
}
