package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/google/uuid"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"golang.org/x/sync/errgroup"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/telemetry"
	"github.com/haulgraph/haulgraph/webhooksig"
)

// Worker sends due deliveries: it runs the claim-and-send loops and the
// HTTP requests; what is due, and what follows an attempt, is
// webhooks.Deliveries'. Several workers (goroutines, instances) can run
// against one database: claims never overlap.
type Worker struct {
	// Store is the delivery store (storage.WebhookStore) the worker's
	// webhooks.Deliveries runs over.
	Store         webhooks.DeliveryStore
	Client        *http.Client
	AllowInsecure bool
	Log           *slog.Logger
	// Now, Schedule and Timeout are injectable so tests need not wait real
	// minutes; nil and zero are webhooks.Deliveries' defaults.
	Now      func() time.Time
	Schedule []time.Duration
	Timeout  time.Duration
	// Batch is how many deliveries one claim takes; they are sent concurrently.
	Batch int
	// Loops is how many claim-and-send loops Run runs side by side.
	Loops int
	// Poll is the fallback interval for due retries and other instances' work.
	Poll time.Duration
	// Drain is how long attempts already sent may still finish once ctx
	// ends (shutdown): no new claim is made, and an answer that arrives in
	// time is recorded instead of being sent again after a restart. Zero
	// cancels them with ctx.
	Drain time.Duration
	// Attempted is told each attempt's outcome: delivered, rejected (another
	// status), gone (410) or error (no answer); metrics. Nil: nobody.
	Attempted func(outcome string)
	// Emitted, when set, is told every body sent (tests validate them
	// against the published schemas).
	Emitted eventschema.EmitFunc
	// Tracer, when set, records each attempt as a client span in the trace
	// of the write that emitted the event (telemetry).
	Tracer trace.Tracer
	// Brokers publishes to the broker destinations (nil: a Brokers of
	// AllowInsecure's, closed when Run ends).
	Brokers *Brokers

	wake chan struct{}
	once sync.Once
	svc  *webhooks.Deliveries
}

func (w *Worker) init() {
	w.once.Do(func() {
		w.wake = make(chan struct{}, 1)
		if w.Now == nil {
			w.Now = time.Now
		}
		if w.Batch == 0 {
			w.Batch = 16
		}
		if w.Loops == 0 {
			w.Loops = 4
		}
		if w.Poll == 0 {
			w.Poll = time.Second
		}
		if w.Log == nil {
			w.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
		}
		if w.Brokers == nil {
			w.Brokers = &Brokers{AllowLoopback: w.AllowInsecure}
		}
		w.svc = &webhooks.Deliveries{Store: w.Store, Now: w.Now, Schedule: w.Schedule, Timeout: w.Timeout}
	})
}

// Wake asks the worker to look for due deliveries now.
func (w *Worker) Wake() {
	w.init()
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run delivers until ctx ends with Loops loops, each claiming on a wake,
// every Poll, and again at once after a batch; a loop that found work wakes
// another, so idle loops join in under load.
// A loop that meets an error no retry mends (domain.Permanent) stops the
// others, and Run returns that error; Run returns nil when ctx ends.
func (w *Worker) Run(ctx context.Context) error {
	w.init()
	defer w.Brokers.Close()
	g, ctx := errgroup.WithContext(ctx)
	for range w.Loops {
		g.Go(func() error { return w.loop(ctx) })
	}
	g.Go(func() error { return w.housekeep(ctx) })
	return g.Wait()
}

// housekeep runs until ctx ends, beside the loops however busy they are:
// every Poll it releases the waiting deliveries whose release was missed,
// every hour it prunes history, every minute it closes idle broker
// connections.
func (w *Worker) housekeep(ctx context.Context) error {
	release, prune, idle := time.NewTicker(w.Poll), time.NewTicker(time.Hour), time.NewTicker(time.Minute)
	defer release.Stop()
	defer prune.Stop()
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-release.C:
			if _, err := w.svc.Release(ctx); err != nil && ctx.Err() == nil {
				w.Log.Error("releasing waiting deliveries", "err", err)
			}
		case <-prune.C:
			if _, err := w.svc.Prune(ctx); err != nil && ctx.Err() == nil {
				w.Log.Error("history pruning", "err", err)
			}
		case <-idle.C:
			w.Brokers.CloseIdle()
		}
	}
}

func (w *Worker) loop(ctx context.Context) error {
	t := time.NewTicker(w.Poll)
	defer t.Stop()
	for {
		n, err := w.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			if domain.Permanent(err) {
				return err
			}
			w.Log.Error("webhook delivery", "err", err)
		}
		if n > 0 && err == nil {
			w.Wake()
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-w.wake:
		case <-t.C:
		}
	}
}

// RunOnce claims one batch of due deliveries, sends them concurrently and
// records every attempt; it returns how many it attempted.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	w.init()
	// A claim is one statement that leases what it returns: cut short by
	// ctx it may still commit, and its deliveries would stay leased (the
	// attempt timeout and a margin) past a clean stop. So no claim starts
	// once ctx has ended, and one that started runs to its end (bounded);
	// its deliveries are then sent within the drain and recorded.
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	claimCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), claimTimeout)
	claimed, err := w.svc.Claim(claimCtx, w.Batch)
	cancel()
	if err != nil {
		return 0, err
	}
	sendCtx, stop := drainContext(ctx, w.Drain)
	defer stop()
	var wg sync.WaitGroup
	errs := make([]error, len(claimed))
	for i, c := range claimed {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sent := w.attempt(sendCtx, c)
			// Recorded even once ctx ends: the answer came (Drain).
			errs[i] = w.svc.Record(context.WithoutCancel(ctx), c, sent)
			// Told once recorded: whoever counts attempts never sees one
			// whose delivery still reads pending.
			if w.Attempted != nil {
				w.Attempted(sent.Outcome())
			}
		}()
	}
	wg.Wait()
	return len(claimed), errors.Join(errs...)
}

// claimTimeout bounds a claim, which its caller cannot cut short.
const claimTimeout = 10 * time.Second

// attempt sends one signed delivery and says what came of it.
func (w *Worker) attempt(ctx context.Context, c webhooks.ClaimedDelivery) webhooks.Sent {
	s := webhooks.Sent{AttemptID: uuid.New()}
	ctx, span := w.startSpan(ctx, c)
	start := time.Now()
	status, err := w.send(ctx, c, s.AttemptID)
	s.Latency, s.At, s.Status = time.Since(start), w.Now(), status
	endSpan(span, status, err)
	if err != nil {
		s.Err = err.Error()
		w.Log.InfoContext(ctx, "webhook attempt failed", "webhook", c.WebhookID, "delivery", c.ID, "err", Cause(err))
	}
	return s
}

// startSpan starts the attempt's span as a child of the writer's (the
// event's stored traceparent): an attempt is caused by that one write. With
// tracing off, the attempt's traceparent still carries the write's trace id.
func (w *Worker) startSpan(ctx context.Context, c webhooks.ClaimedDelivery) (context.Context, trace.Span) {
	parent := telemetry.Remote(ctx, c.Traceparent)
	if w.Tracer == nil {
		if sc := trace.SpanContextFromContext(parent); sc.IsValid() {
			ctx = domain.WithTraceID(ctx, sc.TraceID().String())
		}
		return ctx, nil
	}
	return w.Tracer.Start(parent, "webhook "+c.EventType, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(attribute.String("http.request.method", http.MethodPost),
			attribute.String("webhook.id", c.WebhookID.String()), attribute.String("webhook.delivery.id", c.ID.String()),
			attribute.String("webhook.event.id", c.EventID), attribute.Int("webhook.attempt", c.Attempt)))
}

func endSpan(span trace.Span, status int, err error) {
	if span == nil {
		return
	}
	if status != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", status))
	}
	if err != nil || status < 200 || status > 299 {
		span.SetStatus(codes.Error, "")
	}
	span.End()
}

// send POSTs the event and returns the status; only the status matters, the
// answer's body is drained (bounded) and dropped. A broker destination's
// event is published instead, with the same body and headers, and the
// broker's acknowledgement awaited (status 0).
func (w *Worker) send(ctx context.Context, c webhooks.ClaimedDelivery, attemptID uuid.UUID) (int, error) {
	// The stored envelope, rendered as the events API renders it too.
	body, err := eventlog.WebhookBody(c.Payload, c.IncludePreviousAttributes)
	if err != nil {
		return 0, fmt.Errorf("rendering the event: %w", err)
	}
	if w.Emitted != nil {
		w.Emitted(channelOf(c.Type), c.EventType, body)
	}
	ctx, cancel := context.WithTimeout(ctx, w.svc.AttemptTimeout())
	defer cancel()
	d := Delivery{EventID: c.EventID, EventType: c.EventType, AttemptID: attemptID.String(),
		Scheme: c.Scheme, Key: c.Secret, PreviousKey: c.PreviousSecret}
	at := w.Now()
	header := http.Header{}
	if err := SetHeaders(header, d, at.Unix(), body); err != nil {
		return 0, fmt.Errorf("signing: %w", err)
	}
	header.Set("traceparent", traceparent(ctx))
	if c.Type.IsBroker() {
		return 0, w.Brokers.Publish(ctx, c, body, header, at)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.URL, bytes.NewReader(body))
	if err != nil {
		return 0, fmt.Errorf("invalid endpoint url: %w", err)
	}
	if err := schemeAllowed(req, w.AllowInsecure); err != nil {
		return 0, err
	}
	req.Header = header
	resp, err := w.Client.Do(req)
	if err != nil {
		return 0, noAnswer{err}
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// Delivery is what the headers of one delivery attempt say.
type Delivery struct {
	EventID, EventType, AttemptID string
	Scheme                        webhooks.SignatureScheme
	// Key signs (the HMAC secret, or the ed25519 private key of the
	// asymmetric scheme); PreviousKey, when set, signs too during a rotation.
	Key, PreviousKey string
}

// SetHeaders writes the headers of a delivery of body signed at t: content
// type, user agent, event id and type, the signature headers of d's scheme
// (the X-Service pair, or Standard Webhooks' three: webhook-id is the event
// id, the same on every attempt, so receivers can deduplicate) and the
// attempt id. The worker and the CLI's listen both send through it, so a
// forwarded event is signed exactly as a delivery is.
func SetHeaders(h http.Header, d Delivery, t int64, body []byte) error {
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("User-Agent", UserAgent)
	h.Set(webhooksig.EventIDHeader, d.EventID)
	h.Set(webhooksig.EventHeader, d.EventType)
	h.Set(webhooksig.DeliveryHeader, d.AttemptID)
	var signer func(key, id string, t int64, body []byte) (string, error)
	switch d.Scheme {
	case webhooks.SchemeStandardWebhooks:
		signer = webhooksig.SignStandard
	case webhooks.SchemeStandardWebhooksEd25519:
		signer = webhooksig.SignStandardEd25519
	default:
		h.Set(webhooksig.SignatureHeader, webhooksig.Header(d.Key, d.PreviousKey, t, body))
		h.Set(webhooksig.TimestampHeader, strconv.FormatInt(t, 10))
		return nil
	}
	sigs, err := webhooksig.StandardSignatures(signer, d.Key, d.PreviousKey, d.EventID, t, body)
	if err != nil {
		return err
	}
	h.Set(webhooksig.StandardIDHeader, d.EventID)
	h.Set(webhooksig.StandardTimestampHeader, strconv.FormatInt(t, 10))
	h.Set(webhooksig.StandardSignatureHeader, sigs)
	return nil
}

// drainContext is ctx's values with a cancellation grace after ctx ends.
func drainContext(ctx context.Context, grace time.Duration) (context.Context, context.CancelFunc) {
	if grace <= 0 {
		return ctx, func() {}
	}
	c, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopAfter := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return c, func() { stopAfter(); cancel() }
}
