package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// WebhookCursor is the webhook dispatcher's row in event_cursors.
const WebhookCursor = "webhooks"

// DispatchWebhookEvents turns the next outbox events (at most batch) into one
// delivery per webhook that webhooks.RouteEvents routes them to, due at
// now. It is a durable consumer (Outbox.Consume): the deliveries commit with
// the cursor's advance, so a crash neither loses nor repeats a batch, and
// among several instances one dispatches at a time. Outbox reads only final
// events, so the cursor never passes an event still in flight. It returns
// how many events it consumed. Storage loads the batch's tenants' webhooks
// and writes the routes; the rule is domain's.
func (s *WebhookStore) DispatchWebhookEvents(ctx context.Context, batch int, now time.Time) (int, error) {
	outbox := &Outbox{DB: s.db}
	return outbox.Consume(ctx, WebhookCursor, batch, func(ctx context.Context, tx *Tx, events []OutboxEvent) error {
		routable := make([]webhooks.RoutableEvent, len(events))
		var tenants []string
		seen := map[uuid.UUID]bool{}
		for i, e := range events {
			routable[i] = webhooks.RoutableEvent{Seq: e.Seq, ID: e.ID, TenantID: e.TenantID, SubsidiaryID: e.SubsidiaryID, Type: e.Type}
			if !seen[e.TenantID] {
				seen[e.TenantID] = true
				tenants = append(tenants, e.TenantID.String())
			}
		}
		hooks, err := webhooksOf(ctx, tx, tenants)
		if err != nil {
			return err
		}
		routes := webhooks.RouteEvents(routable, hooks)
		if len(routes) == 0 {
			return nil
		}
		var tenantIDs, webhookIDs, eventIDs []string
		var seqs []int64
		var previous []bool
		for _, r := range routes {
			tenantIDs = append(tenantIDs, r.Event.TenantID.String())
			webhookIDs = append(webhookIDs, r.Webhook.ID.String())
			eventIDs = append(eventIDs, r.Event.ID)
			seqs = append(seqs, r.Event.Seq)
			previous = append(previous, r.Webhook.IncludePreviousAttributes)
		}
		// One constant statement for the whole batch; the partial unique
		// index makes a repeated batch harmless.
		tx.exec(`INSERT INTO webhook_deliveries
			(id, tenant_id, webhook_id, event_id, event_seq, status, next_attempt_at, include_previous_attributes, created_at, signature_scheme)
			SELECT gen_random_uuid(), r.tenant_id, r.webhook_id, r.event_id, r.event_seq, 'Pending', $1, r.previous, $1, w.signature_scheme
			FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::bigint[], $6::boolean[]) AS r(tenant_id, webhook_id, event_id, event_seq, previous)
			JOIN webhooks w ON w.id = r.webhook_id
			ON CONFLICT (webhook_id, event_seq) WHERE NOT redelivery DO NOTHING`,
			now, tenantIDs, webhookIDs, eventIDs, seqs, previous)
		return nil
	})
}

// webhooksOf loads what routing needs of every webhook of the tenants.
func webhooksOf(ctx context.Context, tx *Tx, tenants []string) ([]webhooks.Webhook, error) {
	var hooks []webhooks.Webhook
	tx.query(`SELECT id, tenant_id, subsidiary_id, state, event_types, include_previous_attributes
		FROM webhooks WHERE tenant_id = ANY($1::uuid[]) ORDER BY created_at, id`, func(r pgx.Rows) error {
		var w webhooks.Webhook
		err := r.Scan(&w.ID, &w.TenantID, &w.SubsidiaryID, &w.State, &w.EventTypes, &w.IncludePreviousAttributes)
		hooks = append(hooks, w)
		return err
	}, tenants)
	return hooks, tx.flush(ctx)
}

// ClaimedDelivery is one attempt a worker now owns: the delivery, its webhook's
// endpoint and secrets, and the event.
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
	Scheme                 webhooks.SignatureScheme
	Secret, PreviousSecret string // PreviousSecret only inside a rotation window
	Payload                json.RawMessage
	// FailingSince is the webhook's when the attempt was claimed: the
	// aggregate webhooks.DecideAttempt reads.
	FailingSince *time.Time
	// Traceparent is the trace context of the write that emitted the
	// event, or "".
	Traceparent string
}

// claimDeliveries is one constant statement with bind parameters: pgx
// prepares it once per connection, not once per poll.
const claimDeliveries = `WITH c AS (
	UPDATE webhook_deliveries d SET attempt = d.attempt + 1, next_attempt_at = $1, updated_at = now()
	FROM (SELECT d2.id FROM webhook_deliveries d2 JOIN webhooks w ON w.id = d2.webhook_id
	      WHERE d2.status = 'Pending' AND d2.next_attempt_at <= $2 AND w.state = 'Active'
	      ORDER BY d2.next_attempt_at LIMIT $3 FOR UPDATE OF d2 SKIP LOCKED) due
	WHERE d.id = due.id
	RETURNING d.id, d.tenant_id, d.webhook_id, d.event_id, d.event_seq, d.attempt, d.chain_base, d.include_previous_attributes)
	SELECT c.id, c.tenant_id, c.webhook_id, c.event_id, e.type, c.attempt, c.chain_base, c.include_previous_attributes,
	       w.url, w.signature_scheme, w.secret_ciphertext, w.previous_secret_ciphertext, w.previous_secret_expires_at, e.payload,
	       w.failing_since, coalesce(e.traceparent, '')
	FROM c JOIN webhooks w ON w.id = c.webhook_id JOIN events e ON e.seq = c.event_seq`

// ClaimWebhookDeliveries takes up to limit due deliveries of Active webhooks.
// FOR UPDATE SKIP LOCKED keeps concurrent workers (in this or another
// instance) off each other's rows, and the claim moves next_attempt_at to
// leaseUntil and bumps the attempt number in the same statement, so a claimed
// attempt is not due for anyone else; if the worker dies, the lease expires
// and the attempt is made again (at-least-once).
func (s *WebhookStore) ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]ClaimedDelivery, error) {
	type row struct {
		ClaimedDelivery
		ChainBase        int
		Scheme           string
		Secret, Previous []byte
		PreviousExpires  *time.Time
	}
	var rows []row
	err := s.db.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query(claimDeliveries, func(rs pgx.Rows) error {
			var r row
			err := rs.Scan(&r.ID, &r.TenantID, &r.WebhookID, &r.EventID, &r.EventType, &r.Attempt, &r.ChainBase, &r.IncludePreviousAttributes,
				&r.URL, &r.Scheme, &r.Secret, &r.Previous, &r.PreviousExpires, &r.Payload, &r.FailingSince, &r.Traceparent)
			rows = append(rows, r)
			return err
		}, leaseUntil, now, limit)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]ClaimedDelivery, 0, len(rows))
	for _, r := range rows {
		secret, err := s.box.Open(r.Secret, secretAAD(r.WebhookID))
		if err != nil {
			return nil, fmt.Errorf("webhook %s: %w", r.WebhookID, err)
		}
		c := r.ClaimedDelivery
		c.ChainAttempt, c.Scheme, c.Secret = r.Attempt-r.ChainBase, webhooks.SignatureScheme(r.Scheme), string(secret)
		if r.Previous != nil && r.PreviousExpires != nil && r.PreviousExpires.After(now) {
			prev, err := s.box.Open(r.Previous, secretAAD(r.WebhookID))
			if err != nil {
				return nil, fmt.Errorf("webhook %s: %w", r.WebhookID, err)
			}
			c.PreviousSecret = string(prev)
		}
		out = append(out, c)
	}
	return out, nil
}

// AttemptLog is the log line of one attempt.
type AttemptLog struct {
	AttemptID  uuid.UUID
	StatusCode *int
	Latency    time.Duration
	Error      string
	At         time.Time
}

// recordAttempt saves what webhooks.DecideAttempt decided after an attempt,
// in one statement (one round trip, no BEGIN or COMMIT): it logs the
// attempt, moves the delivery on and saves the webhook's failing_since and,
// when decided, its disabling. The claim was the load and its lease the
// lock: only the worker holding attempt c.Attempt moves the delivery; a
// stale one (its lease expired and the attempt was claimed again) records
// the log line and changes nothing else.
const recordAttempt = `WITH attempt AS (
		INSERT INTO webhook_attempts (id, tenant_id, delivery_id, attempt, status_code, latency_ms, error, attempted_at, signature_scheme)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)),
	moved AS (
		UPDATE webhook_deliveries SET status = $10, next_attempt_at = $11, updated_at = now()
		WHERE id = $3 AND attempt = $4 AND status = 'Pending' RETURNING 1),
	hook AS (
		UPDATE webhooks SET failing_since = CASE WHEN $12::timestamptz IS NULL THEN NULL ELSE coalesce(failing_since, $12) END,
			state = CASE WHEN $13 AND state = 'Active' THEN $14 ELSE state END,
			state_reason = CASE WHEN $13 AND state = 'Active' THEN $15 ELSE state_reason END,
			updated_at = CASE WHEN $13 AND state = 'Active' THEN now() ELSE updated_at END
		WHERE id = $16 AND EXISTS (SELECT 1 FROM moved)
		  AND ($13 OR failing_since IS DISTINCT FROM $12::timestamptz AND ($12::timestamptz IS NULL OR failing_since IS NULL))
		RETURNING 1)
	SELECT EXISTS (SELECT 1 FROM moved)`

// RecordWebhookAttempt logs the attempt c and saves d, what the domain
// decided of it (see recordAttempt); moved reports that the delivery moved
// on (this worker held the attempt).
func (s *WebhookStore) RecordWebhookAttempt(ctx context.Context, c ClaimedDelivery, l AttemptLog, d webhooks.AttemptDecision) (moved bool, err error) {
	var errText *string
	if l.Error != "" {
		e := truncate(l.Error, 1000)
		errText = &e
	}
	err = s.db.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query(recordAttempt, func(r pgx.Rows) error { return r.Scan(&moved) },
			l.AttemptID, c.TenantID, c.ID, c.Attempt, l.StatusCode, l.Latency.Milliseconds(), errText, l.At, string(c.Scheme),
			d.Status, d.NextAttemptAt, d.FailingSince, d.Disable, string(d.To), d.Reason, c.WebhookID)
		return nil
	})
	return moved, err
}

// BringForward is the recovery of an endpoint that answers again: it loads
// the endpoint's retries due within webhooks.RecoveryWindow of now (how many)
// and those waiting beyond it (earliest first, at most
// webhooks.RecoveryBurst, locked), lets plan decide their new times
// (webhooks.RecoverySchedule) and saves them. Only deliveries whose last
// attempt has been recorded (not one in flight) move.
func (s *WebhookStore) BringForward(ctx context.Context, webhookID uuid.UUID, now time.Time,
	plan func(now time.Time, dueSoon int, waiting []uuid.UUID) map[uuid.UUID]time.Time) error {
	horizon := now.Add(webhooks.RecoveryWindow)
	return s.db.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		var dueSoon int
		var waiting []uuid.UUID
		tx.query(`SELECT count(*) FROM webhook_deliveries WHERE webhook_id = $1 AND status = 'Pending' AND next_attempt_at <= $2`,
			func(r pgx.Rows) error { return r.Scan(&dueSoon) }, webhookID, horizon)
		tx.query(`SELECT d.id FROM webhook_deliveries d
			WHERE d.webhook_id = $1 AND d.status = 'Pending' AND d.next_attempt_at > $2
			  AND EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.attempt = d.attempt)
			ORDER BY d.next_attempt_at, d.id LIMIT $3 FOR UPDATE OF d SKIP LOCKED`, func(r pgx.Rows) error {
			var id uuid.UUID
			err := r.Scan(&id)
			waiting = append(waiting, id)
			return err
		}, webhookID, horizon, webhooks.RecoveryBurst)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		moves := plan(now, dueSoon, waiting)
		if len(moves) == 0 {
			return nil
		}
		ids, at := make([]uuid.UUID, 0, len(moves)), make([]time.Time, 0, len(moves))
		for id, t := range moves {
			ids, at = append(ids, id), append(at, t)
		}
		tx.exec(`UPDATE webhook_deliveries d SET next_attempt_at = m.at, updated_at = now()
			FROM unnest($1::uuid[], $2::timestamptz[]) AS m(id, at) WHERE d.id = m.id`, ids, at)
		return nil
	})
}

// PruneHistory keeps docs/architecture.md's 30 days of history: it deletes attempt
// logs, finished deliveries and outbox events older than before. An event
// goes only once every durable consumer has passed it and no delivery still
// refers to it, so nothing is lost that could still be delivered or
// redelivered. It returns how many rows went.
func (s *WebhookStore) PruneHistory(ctx context.Context, before time.Time) (int64, error) {
	var n [3]int64
	err := s.db.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		for i, q := range []string{
			"DELETE FROM webhook_attempts WHERE attempted_at < $1",
			"DELETE FROM webhook_deliveries WHERE status <> 'Pending' AND updated_at < $1",
			`DELETE FROM events e WHERE e.created_at < $1
			   AND NOT EXISTS (SELECT 1 FROM event_cursors c WHERE (c.last_xact, c.last_seq) < (e.xact, e.seq))
			   AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_seq = e.seq)`,
		} {
			tx.execCount(&n[i], q, before)
		}
		return nil
	})
	return n[0] + n[1] + n[2], err
}

// truncate cuts s to at most n bytes without splitting a UTF-8 character
// (the column is text: a split rune would be invalid UTF-8).
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
