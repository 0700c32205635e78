// Command webhooks benchmarks event delivery end to end: events committed
// to the outbox, dispatched, signed and POSTed to a local receiver by a real
// HaulGraph instance, or published to a local broker (-to nats-jetstream,
// -to rabbitmq: a nats-server or rabbitmq-server it starts, and a consumer
// verifying every message). It reports deliveries per second and the latency
// from the event's commit to its arrival at the receiver (p50, p99).
//
//	./scripts/with-pg.sh go run ./bench/webhooks [-to webhook] [-events 5000] [-latency-events 300]
//
// It works in a temporary database on DATABASE_URL's server, dropped at the end.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/bench/benchkit"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/secretbox"
	"github.com/haulgraph/haulgraph/webhooksig"
)

func main() {
	events := flag.Int("events", 5000, "events for the throughput run")
	latencyEvents := flag.Int("latency-events", 300, "events committed one by one for the latency run")
	to := flag.String("to", string(webhooks.TypeWebhook), "destination type: webhook, nats-jetstream or rabbitmq")
	flag.Parse()
	if err := run(webhooks.Type(*to), *events, *latencyEvents); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// receiver records when each event id first arrived, and checks signatures.
type receiver struct {
	mu      sync.Mutex
	secret  string
	arrived map[string]time.Time
	badSig  int
	waiters map[int]chan struct{}
}

func (r *receiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	if c := req.Header.Get("X-Service-Challenge"); c != "" {
		_ = json.NewEncoder(w).Encode(map[string]string{"challenge": c})
		return
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if webhooksig.Verify(body, req.Header.Get(webhooksig.SignatureHeader), r.secret, webhooksig.DefaultTolerance) != nil {
		r.badSig++
	}
	r.arrive(req.Header.Get(webhooksig.EventIDHeader), now)
}

// arrive records id's first arrival at now (the caller holds r.mu).
func (r *receiver) arrive(id string, now time.Time) {
	if _, seen := r.arrived[id]; !seen {
		r.arrived[id] = now
		if ch, ok := r.waiters[len(r.arrived)]; ok {
			close(ch)
			delete(r.waiters, len(r.arrived))
		}
	}
}

// waitFor returns a channel closed when n distinct events have arrived.
func (r *receiver) waitFor(n int) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	ch := make(chan struct{})
	if len(r.arrived) >= n {
		close(ch)
		return ch
	}
	r.waiters[n] = ch
	return ch
}

func run(to webhooks.Type, nEvents, nLatency int) error {
	ctx := context.Background()
	dbURL, drop, err := benchkit.TempDatabase(ctx)
	if err != nil {
		return err
	}
	defer drop()

	cfg := app.Config{DatabaseURL: dbURL, Addr: "127.0.0.1:0", Audience: app.DefaultAudience, DevAllowHTTPWebhooks: true,
		BlobURL: "file://" + os.TempDir(), PublicURL: "http://127.0.0.1:1", TokenTTL: time.Hour,
		EncryptionKey: secretbox.NewKey()} // a database of its own, dropped after the run: a key of its own
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer a.Close()
	rcv := &receiver{arrived: map[string]time.Time{}, waiters: map[int]chan struct{}{}}
	srv := httptest.NewServer(rcv)
	defer srv.Close()

	tenant, sub := uuid.New(), uuid.New()
	if _, err := a.DB.Bun.ExecContext(ctx, "INSERT INTO tenants (id, slug, name) VALUES (?, 'bench', 'Bench')", tenant); err != nil {
		return err
	}
	if _, err := a.DB.Bun.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'main')", sub, tenant); err != nil {
		return err
	}
	pctx := domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenant, Scopes: []domain.Scope{domain.ScopeWebhookManage}})
	if to.IsBroker() {
		stop, err := brokerDestination(pctx, a, to, sub, rcv)
		if err != nil {
			return err
		}
		defer stop()
	} else if err := webhookDestination(pctx, a, srv.URL+"/hook", sub, rcv); err != nil {
		return err
	}
	payload := strings.Repeat("x", 1500) // a load snapshot is a couple of KB

	// Backlog: the events are committed first, then the instance starts and
	// dispatches and delivers them (pure delivery throughput).
	commitStart := time.Now()
	if err := insertMany(ctx, a, tenant, sub, nEvents, payload); err != nil {
		return err
	}
	idleCommit := time.Since(commitStart)
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	start := time.Now()
	go func() { defer close(done); _ = a.Run(runCtx) }()
	defer func() { stop(); <-done }()
	select {
	case <-rcv.waitFor(nEvents):
	case <-time.After(10 * time.Minute):
		return fmt.Errorf("backlog run: only %d of %d events arrived", len(rcv.arrived), nEvents)
	}
	backlog := time.Since(start)
	seen := nEvents

	// Latency: one event per transaction, the next once the previous arrived.
	commits := map[string]time.Time{}
	for i := 0; i < nLatency; i++ {
		id := uuid.NewString() + "-0"
		if err := insertEvents(ctx, a, tenant, sub, []string{id}, payload); err != nil {
			return err
		}
		commits[id] = time.Now()
		select {
		case <-rcv.waitFor(seen + i + 1):
		case <-time.After(time.Minute):
			return fmt.Errorf("latency run: event %d did not arrive", i+1)
		}
	}
	rcv.mu.Lock()
	lat := make([]time.Duration, 0, nLatency)
	for id, c := range commits {
		lat = append(lat, rcv.arrived[id].Sub(c))
	}
	rcv.mu.Unlock()
	slices.Sort(lat)

	seen += nLatency

	// Under write load: events committed in transactions of 100 while the
	// instance delivers.
	start = time.Now()
	if err := insertMany(ctx, a, tenant, sub, nEvents, payload); err != nil {
		return err
	}
	committed := time.Since(start)
	select {
	case <-rcv.waitFor(seen + nEvents):
	case <-time.After(10 * time.Minute):
		return fmt.Errorf("throughput run: only %d of %d events arrived", len(rcv.arrived)-nLatency, nEvents)
	}
	elapsed := time.Since(start)

	fmt.Printf("%s delivery benchmark (one instance, local receiver, default worker: 4 loops × batches of 16, 500 loads)\n", to)
	fmt.Printf("latency, commit → delivery, %d events one at a time (idle system): p50 %s  p99 %s  max %s\n",
		nLatency, pct(lat, 0.50), pct(lat, 0.99), lat[len(lat)-1].Round(time.Microsecond))
	fmt.Printf("throughput, backlog of %d committed events: delivered in %s: %.0f deliveries/s\n",
		nEvents, backlog.Round(time.Millisecond), float64(nEvents)/backlog.Seconds())
	fmt.Printf("(for comparison, the same %d events committed in %s with no dispatcher running)\n", nEvents, idleCommit.Round(time.Millisecond))
	fmt.Printf("throughput under write load: %d events committed in %s (transactions of 100), all delivered in %s: %.0f deliveries/s\n",
		nEvents, committed.Round(time.Millisecond), elapsed.Round(time.Millisecond), float64(nEvents)/elapsed.Seconds())
	fmt.Printf("signatures failing verification: %d\n", rcv.badSig)
	return nil
}

func pct(sorted []time.Duration, p float64) time.Duration {
	return sorted[int(float64(len(sorted)-1)*p)].Round(time.Microsecond)
}

// insertMany commits n events in transactions of 100.
func insertMany(ctx context.Context, a *app.App, tenant, sub uuid.UUID, n int, pad string) error {
	for i := 0; i < n; i += 100 {
		ids := make([]string, 0, 100)
		for j := i; j < i+100 && j < n; j++ {
			ids = append(ids, uuid.NewString()+"-0")
		}
		if err := insertEvents(ctx, a, tenant, sub, ids, pad); err != nil {
			return err
		}
	}
	return nil
}

// loadSeq spreads the events over the loads.
var loadSeq int

// insertEvents commits the events in one transaction, as a load write does.
func insertEvents(ctx context.Context, a *app.App, tenant, sub uuid.UUID, ids []string, pad string) error {
	tx, err := a.DB.Bun.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck
	for _, id := range ids {
		// 500 loads: the deliveries of one load go in commit order.
		load := fmt.Sprintf("L-%d", loadSeq%500)
		loadSeq++
		payload, _ := json.Marshal(map[string]any{"id": id, "type": domain.EventLoadChanged, "timestamp": time.Now().Format(time.RFC3339),
			"version": "v1", "data": map[string]any{"load": map[string]any{"Id": uuid.NewString(), "LoadNumber": load, "Commodity": pad}}})
		if _, err := tx.ExecContext(ctx, "INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload) VALUES (?, ?, ?, ?, ?, ?)",
			id, tenant, sub, domain.EventLoadChanged, uuid.New(), string(payload)); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// webhookDestination creates and enables a webhook posting to url.
func webhookDestination(ctx context.Context, a *app.App, url string, sub uuid.UUID, rcv *receiver) error {
	name := "bench"
	w, secret, err := a.Webhooks.Service.Create(ctx, webhooks.Input{Name: &name, URL: &url,
		EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub})
	if err != nil {
		return err
	}
	rcv.secret = secret
	if w, err = a.Webhooks.Service.Enable(ctx, w.ID); err != nil || w.State != webhooks.WebhookActive {
		return fmt.Errorf("enable: %v (%s)", err, w.StateReason)
	}
	return nil
}
