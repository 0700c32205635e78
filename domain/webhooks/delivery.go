package webhooks

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// DeliveryStore is the storage port of webhook delivery: the webhook
// consumer of the outbox, the claims and the attempts. It runs as the
// system, across tenants, and decides nothing: it loads what Deliveries asks
// for and saves what Deliveries decided.
type DeliveryStore interface {
	// DispatchEvents hands the next outbox events (at most limit) after the
	// dispatcher's durable cursor, with every webhook of their tenants, to
	// route, and saves the deliveries route returns with the cursor's
	// advance, in one transaction: a crash neither loses nor repeats a
	// batch, and among several instances one dispatches at a time. Only
	// final events are handed over, so the cursor never passes one still in
	// flight. A delivery behind an earlier Pending one of its load and
	// destination is queued without a due time (ClaimDeliveries). It
	// returns how many events were consumed.
	DispatchEvents(ctx context.Context, limit int, route func(events []RoutableEvent, hooks []Webhook) []NewDelivery) (int, error)
	// ClaimDeliveries takes up to limit Pending deliveries due at now, of
	// Active webhooks, and leases them until leaseUntil. A delivery
	// behind an earlier Pending one of its load and destination has no
	// due time (DispatchEvents queues it so, RecordAttempt releases it
	// once the earlier one is finished): the events of one load reach a
	// destination in commit order, a retry holding the later ones back.
	// The lease: the attempt number
	// grows and the next attempt moves to leaseUntil in the same statement,
	// so no other worker (of any instance) claims them meanwhile; a worker
	// that dies lets its lease expire, and the attempt is made again.
	ClaimDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]ClaimedDelivery, error)
	// RecordAttempt logs the attempt c and saves d in one statement; moved
	// reports that the delivery moved on (this worker still held attempt
	// c.Attempt; a stale one only logs).
	RecordAttempt(ctx context.Context, c ClaimedDelivery, l AttemptLog, d AttemptDecision) (moved bool, err error)
	// BringForward loads, in one transaction, how many of the webhook's
	// Pending deliveries are due by horizon and which wait beyond it (at
	// most limit, earliest first, locked, none with an attempt in flight),
	// lets plan decide their new times and saves them.
	BringForward(ctx context.Context, webhookID uuid.UUID, horizon time.Time, limit int,
		plan func(dueSoon int, waiting []uuid.UUID) map[uuid.UUID]time.Time) error
	// PruneHistory deletes attempt logs, finished deliveries and consumed
	// outbox events older than before, returning how many rows went.
	PruneHistory(ctx context.Context, before time.Time) (int64, error)
	// ReleaseWaiting makes due at now every delivery that waits (no due
	// time) behind an earlier one of its load that is no longer Pending.
	// DispatchEvents queues a delivery behind an earlier Pending one of its
	// load that way, and RecordAttempt releases the next when one finishes;
	// this mends a release missed by a concurrent dispatch.
	ReleaseWaiting(ctx context.Context, now time.Time) (int64, error)
}

// NewDelivery is a delivery to queue: a route, with its status and when its
// first attempt is due.
type NewDelivery struct {
	Route
	Status string
	Due    time.Time
}

// ClaimedDelivery is one attempt a worker now owns: the delivery, its
// webhook's endpoint and keys, and the event.
type ClaimedDelivery struct {
	ID, TenantID, WebhookID uuid.UUID
	EventID, EventType      string
	Attempt                 int // this attempt's number, 1-based
	// ChainAttempt is the attempt's number in its retry chain (recover
	// starts a fresh chain): what the retry schedule follows.
	ChainAttempt              int
	IncludePreviousAttributes bool
	URL                       string
	// Scheme says how to sign; Secret is its key ("whsec_…" or "whsk_…").
	Scheme SignatureScheme
	Secret string
	// PreviousSecret signs too while a rotation lasts: Claim keeps it only
	// before PreviousSecretExpires.
	PreviousSecret        string
	PreviousSecretExpires *time.Time
	Payload               json.RawMessage
	// FailingSince is the webhook's when the attempt was claimed: the
	// aggregate DecideAttempt reads.
	FailingSince *time.Time
	// Traceparent is the trace context of the write that emitted the
	// event, or "".
	Traceparent string
	// Type is the destination's; for a broker type, Target says where
	// the event is published (its URL is URL).
	Type   Type
	Target Target
	// Load is the event's load number (the last token of its subject).
	Load string
}

// AttemptLog is the log line of one attempt, as it is kept.
type AttemptLog struct {
	AttemptID  uuid.UUID
	StatusCode *int
	Latency    time.Duration
	Error      string
	At         time.Time
}

// Sent is what the sender saw of one attempt: the endpoint's status (0:
// no HTTP answer), or why there was none. A broker's acknowledgement is
// neither: status 0 and no error.
type Sent struct {
	AttemptID uuid.UUID
	Status    int
	// Err is why no answer came (or why nothing was sent), "" otherwise.
	Err     string
	Latency time.Duration
	At      time.Time
}

// Attempt outcomes, in a word (metrics).
const (
	OutcomeDelivered = "delivered"
	OutcomeRejected  = "rejected" // another status
	OutcomeGone      = "gone"     // 410
	OutcomeError     = "error"    // no HTTP answer
)

// Outcome is what the attempt came to: a broker's acknowledgement and any
// 2xx deliver, 410 Gone asks for the endpoint to be disabled, any other
// status is a rejection.
func (s Sent) Outcome() string {
	switch {
	case s.Err != "":
		return OutcomeError
	case s.Status == 0: // no error and no HTTP answer: a broker acknowledged
		return OutcomeDelivered
	case s.Status >= 200 && s.Status < 300:
		return OutcomeDelivered
	case s.Status == http.StatusGone:
		return OutcomeGone
	}
	return OutcomeRejected
}

// HistoryRetention is how long delivery history (attempts, finished
// deliveries, consumed events) is kept.
const HistoryRetention = 30 * 24 * time.Hour

// leaseMargin is how long a claim outlives its attempt's timeout: a worker
// that records late still holds its delivery.
const leaseMargin = 30 * time.Second

// Deliveries is the webhook delivery service: it routes outbox events to
// webhooks, claims due deliveries, decides each attempt (DecideAttempt,
// the retry schedule), brings an endpoint's retries forward when it
// answers again, and prunes history. The dispatcher and the worker
// (events/webhook) run its loops and send the requests.
type Deliveries struct {
	Store DeliveryStore
	Now   func() time.Time
	// Schedule is the delay before each retry (nil:
	// DeliveryRetrySchedule).
	Schedule []time.Duration
	// Timeout bounds one attempt (zero: DeliveryTimeout); a claim's lease
	// outlives it.
	Timeout time.Duration
}

func (s *Deliveries) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// AttemptTimeout is how long one attempt may take.
func (s *Deliveries) AttemptTimeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DeliveryTimeout
}

// Dispatch consumes the next outbox events (at most limit) and queues one
// delivery per webhook RouteEvents routes each to, due now; it returns how
// many events it consumed.
func (s *Deliveries) Dispatch(ctx context.Context, limit int) (int, error) {
	now := s.now()
	return s.Store.DispatchEvents(ctx, limit, func(events []RoutableEvent, hooks []Webhook) []NewDelivery {
		routes := RouteEvents(events, hooks)
		out := make([]NewDelivery, len(routes))
		for i, r := range routes {
			out[i] = NewDelivery{Route: r, Status: DeliveryPending, Due: now}
		}
		return out
	})
}

// Claim takes up to limit due deliveries, leased for an attempt; a
// previous secret whose rotation has ended is dropped.
func (s *Deliveries) Claim(ctx context.Context, limit int) ([]ClaimedDelivery, error) {
	now := s.now()
	claimed, err := s.Store.ClaimDeliveries(ctx, now, now.Add(s.AttemptTimeout()+leaseMargin), limit)
	for i := range claimed {
		if c := &claimed[i]; !RotationLasts(c.PreviousSecretExpires, now) {
			c.PreviousSecret = ""
		}
	}
	return claimed, err
}

// Record decides the delivery after the attempt a and saves the decision
// (DecideAttempt) with the attempt's log line; when the endpoint is back,
// its waiting retries come forward (RecoverySchedule) in a transaction of
// their own: should that fail, they keep their schedule.
func (s *Deliveries) Record(ctx context.Context, c ClaimedDelivery, a Sent) error {
	l := AttemptLog{AttemptID: a.AttemptID, Latency: a.Latency, At: a.At, Error: a.Err}
	if a.Status != 0 {
		status := a.Status
		l.StatusCode = &status
	}
	r := AttemptResult{At: a.At}
	switch a.Outcome() {
	case OutcomeDelivered:
		r.Delivered = true
	case OutcomeGone:
		r.Gone, l.Error = true, "410 Gone: the endpoint asked to be disabled"
	case OutcomeRejected:
		l.Error = "status " + strconv.Itoa(a.Status)
	}
	if !r.Delivered && !r.Gone {
		schedule := s.Schedule
		if schedule == nil {
			schedule = DeliveryRetrySchedule
		}
		if next, ok := NextRetry(schedule, c.ChainAttempt, a.At); ok {
			r.NextAttemptAt = &next
		}
	}
	d := DecideAttempt(r, c.ChainAttempt, c.FailingSince)
	moved, err := s.Store.RecordAttempt(ctx, c, l, d)
	if err != nil || !moved || !d.BringForward {
		return err
	}
	return s.Store.BringForward(ctx, c.WebhookID, a.At.Add(RecoveryWindow), RecoveryBurst,
		func(dueSoon int, waiting []uuid.UUID) map[uuid.UUID]time.Time {
			return RecoverySchedule(a.At, dueSoon, waiting)
		})
}

// Release makes due the deliveries waiting behind a finished one of their
// load (DeliveryStore.ReleaseWaiting).
func (s *Deliveries) Release(ctx context.Context) (int64, error) {
	return s.Store.ReleaseWaiting(ctx, s.now())
}

// Prune deletes the history older than HistoryRetention.
func (s *Deliveries) Prune(ctx context.Context) (int64, error) {
	return s.Store.PruneHistory(ctx, s.now().Add(-HistoryRetention))
}
