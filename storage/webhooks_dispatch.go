package storage

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
)

// WebhookCursor is the webhook dispatcher's row in event_cursors.
const WebhookCursor = "webhooks"

// DispatchWebhookEvents turns the next outbox events (at most batch) into one
// delivery per webhook that domain.RouteWebhookEvents routes them to, due at
// now. It is a durable consumer (Outbox.Consume): the deliveries commit with
// the cursor's advance, so a crash neither loses nor repeats a batch, and
// among several instances one dispatches at a time. Outbox reads only final
// events, so the cursor never passes an event still in flight. It returns
// how many events it consumed. Storage loads the batch's tenants' webhooks
// and writes the routes; the rule is domain's.
func (s *WebhookStore) DispatchWebhookEvents(ctx context.Context, batch int, now time.Time) (int, error) {
	outbox := &Outbox{DB: s.db}
	return outbox.Consume(ctx, WebhookCursor, batch, func(ctx context.Context, tx bun.Tx, events []OutboxEvent) error {
		routable := make([]domain.RoutableEvent, len(events))
		var tenants []string
		seen := map[uuid.UUID]bool{}
		for i, e := range events {
			routable[i] = domain.RoutableEvent{Seq: e.Seq, ID: e.ID, TenantID: e.TenantID, SubsidiaryID: e.SubsidiaryID, Type: e.Type}
			if !seen[e.TenantID] {
				seen[e.TenantID] = true
				tenants = append(tenants, e.TenantID.String())
			}
		}
		hooks, err := webhooksOf(ctx, tx, tenants)
		if err != nil {
			return err
		}
		routes := domain.RouteWebhookEvents(routable, hooks)
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
		_, err = tx.Tx.ExecContext(ctx, `INSERT INTO webhook_deliveries
			(id, tenant_id, webhook_id, event_id, event_seq, status, next_attempt_at, include_previous_attributes, created_at, signature_scheme)
			SELECT gen_random_uuid(), r.tenant_id, r.webhook_id, r.event_id, r.event_seq, 'Pending', $1, r.previous, $1, w.signature_scheme
			FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::bigint[], $6::boolean[]) AS r(tenant_id, webhook_id, event_id, event_seq, previous)
			JOIN webhooks w ON w.id = r.webhook_id
			ON CONFLICT (webhook_id, event_seq) WHERE NOT redelivery DO NOTHING`,
			now, tenantIDs, webhookIDs, eventIDs, seqs, previous)
		return err
	})
}

// webhooksOf loads what routing needs of every webhook of the tenants.
func webhooksOf(ctx context.Context, tx bun.Tx, tenants []string) ([]domain.Webhook, error) {
	rows, err := tx.Tx.QueryContext(ctx, `SELECT id, tenant_id, subsidiary_id, state, array_to_json(event_types), include_previous_attributes
		FROM webhooks WHERE tenant_id = ANY($1::uuid[]) ORDER BY created_at, id`, tenants)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var hooks []domain.Webhook
	for rows.Next() {
		var w domain.Webhook
		var types []byte // database/sql cannot scan a text[]: read it as JSON
		if err := rows.Scan(&w.ID, &w.TenantID, &w.SubsidiaryID, &w.State, &types, &w.IncludePreviousAttributes); err != nil {
			return nil, err
		}
		if err := json.Unmarshal(types, &w.EventTypes); err != nil {
			return nil, err
		}
		hooks = append(hooks, w)
	}
	return hooks, rows.Err()
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
	Scheme                 domain.SignatureScheme
	Secret, PreviousSecret string // PreviousSecret only inside a rotation window
	Payload                json.RawMessage
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
	       w.url, w.signature_scheme, w.secret_ciphertext, w.previous_secret_ciphertext, w.previous_secret_expires_at, e.payload, coalesce(e.traceparent, '')
	FROM c JOIN webhooks w ON w.id = c.webhook_id JOIN events e ON e.seq = c.event_seq`

// ClaimWebhookDeliveries takes up to limit due deliveries of Active webhooks.
// FOR UPDATE SKIP LOCKED keeps concurrent workers (in this or another
// instance) off each other's rows, and the claim moves next_attempt_at to
// leaseUntil and bumps the attempt number in the same statement, so a claimed
// attempt is not due for anyone else; if the worker dies, the lease expires
// and the attempt is made again (at-least-once).
func (s *WebhookStore) ClaimWebhookDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]ClaimedDelivery, error) {
	type row struct {
		ID, TenantID, WebhookID   uuid.UUID
		EventID, EventType        string
		Attempt, ChainBase        int
		IncludePreviousAttributes bool
		URL, Scheme               string
		Secret, Previous          []byte
		PreviousExpires           *time.Time
		Payload                   json.RawMessage
		Traceparent               string
	}
	var rows []row
	rs, err := s.db.Pool.Query(ctx, claimDeliveries, leaseUntil, now, limit)
	if err != nil {
		return nil, err
	}
	for rs.Next() {
		var r row
		if err := rs.Scan(&r.ID, &r.TenantID, &r.WebhookID, &r.EventID, &r.EventType, &r.Attempt, &r.ChainBase, &r.IncludePreviousAttributes,
			&r.URL, &r.Scheme, &r.Secret, &r.Previous, &r.PreviousExpires, &r.Payload, &r.Traceparent); err != nil {
			rs.Close()
			return nil, err
		}
		rows = append(rows, r)
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, err
	}
	out := make([]ClaimedDelivery, 0, len(rows))
	for _, r := range rows {
		secret, err := s.box.Open(r.Secret, secretAAD(r.WebhookID))
		if err != nil {
			return nil, fmt.Errorf("webhook %s: %w", r.WebhookID, err)
		}
		c := ClaimedDelivery{ID: r.ID, TenantID: r.TenantID, WebhookID: r.WebhookID, EventID: r.EventID, EventType: r.EventType,
			Attempt: r.Attempt, ChainAttempt: r.Attempt - r.ChainBase, IncludePreviousAttributes: r.IncludePreviousAttributes, URL: r.URL,
			Scheme: domain.SignatureScheme(r.Scheme), Secret: string(secret), Payload: r.Payload, Traceparent: r.Traceparent}
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

// AttemptOutcome is what a worker records after one attempt.
type AttemptOutcome struct {
	AttemptID  uuid.UUID
	StatusCode *int
	Latency    time.Duration
	Error      string
	At         time.Time
	Delivered  bool
	// NextAttemptAt schedules a retry; nil with !Delivered fails the chain.
	NextAttemptAt *time.Time
	// Gone: the endpoint answered 410, which disables the webhook.
	Gone bool
}

// RecordWebhookAttempt logs the attempt and moves the delivery on; it keeps
// the webhook's failing_since and disables an endpoint that answered 410 or
// whose deliveries have all failed for domain.AutoDisableAfter. A stale
// worker (its lease expired and the attempt was claimed again) records the
// log line but changes nothing else.
func (s *WebhookStore) RecordWebhookAttempt(ctx context.Context, c ClaimedDelivery, o AttemptOutcome) error {
	var errText *string
	if o.Error != "" {
		e := truncate(o.Error, 1000)
		errText = &e
	}
	if o.Delivered {
		return s.recordDelivered(ctx, c, o, errText)
	}
	return s.db.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO webhook_attempts (id, tenant_id, delivery_id, attempt, status_code, latency_ms, error, attempted_at, signature_scheme)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, o.AttemptID, c.TenantID, c.ID, c.Attempt, o.StatusCode, o.Latency.Milliseconds(), errText, o.At, string(c.Scheme)); err != nil {
			return err
		}
		status := domain.DeliveryPending
		if o.NextAttemptAt == nil || o.Gone {
			status = domain.DeliveryFailed
		}
		res, err := tx.ExecContext(ctx, `UPDATE webhook_deliveries SET status = ?, next_attempt_at = ?, updated_at = now()
			WHERE id = ? AND attempt = ? AND status = 'Pending'`, status, o.NextAttemptAt, c.ID, c.Attempt)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return nil
		}
		var failingSince time.Time
		if err := tx.QueryRowContext(ctx, `UPDATE webhooks SET failing_since = coalesce(failing_since, ?) WHERE id = ? RETURNING failing_since`,
			o.At, c.WebhookID).Scan(&failingSince); err != nil {
			return err
		}
		to, reason, disable := domain.AfterFailedAttempt(o.Gone, failingSince, o.At)
		if !disable {
			return nil
		}
		_, err = tx.ExecContext(ctx, "UPDATE webhooks SET state = ?, state_reason = ?, updated_at = now() WHERE id = ? AND state = 'Active'",
			string(to), reason, c.WebhookID)
		return err
	})
}

// recordDelivered is RecordWebhookAttempt of a delivered attempt, the one
// a backlog is made of: one statement (one round trip, no BEGIN or COMMIT)
// logs it, marks the delivery delivered and clears the endpoint's
// failing_since. When the endpoint answers again (it was failing, or this
// was a retry) its other waiting retries are then brought forward, in a
// transaction of their own: should that fail, they keep their schedule.
func (s *WebhookStore) recordDelivered(ctx context.Context, c ClaimedDelivery, o AttemptOutcome, errText *string) error {
	var moved, recovered bool
	err := s.db.Pool.QueryRow(ctx, `WITH attempt AS (
			INSERT INTO webhook_attempts (id, tenant_id, delivery_id, attempt, status_code, latency_ms, error, attempted_at, signature_scheme)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $10)),
		moved AS (
			UPDATE webhook_deliveries SET status = 'Delivered', next_attempt_at = NULL, updated_at = now()
			WHERE id = $3 AND attempt = $4 AND status = 'Pending' RETURNING 1),
		recovered AS (
			UPDATE webhooks SET failing_since = NULL
			WHERE id = $9 AND failing_since IS NOT NULL AND EXISTS (SELECT 1 FROM moved) RETURNING 1)
		SELECT EXISTS (SELECT 1 FROM moved), EXISTS (SELECT 1 FROM recovered)`,
		o.AttemptID, c.TenantID, c.ID, c.Attempt, o.StatusCode, o.Latency.Milliseconds(), errText, o.At, c.WebhookID, string(c.Scheme),
	).Scan(&moved, &recovered)
	if err != nil || !moved || (!recovered && c.ChainAttempt <= 1) {
		return err
	}
	return s.db.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		return bringForward(ctx, tx, c.WebhookID, o.At)
	})
}

// bringForward makes the endpoint's retries that wait beyond the recovery
// window due within it, at the pace domain.RecoverySlots allows. Only
// deliveries whose last attempt has been recorded (not one in flight) move.
func bringForward(ctx context.Context, tx bun.Tx, webhookID uuid.UUID, now time.Time) error {
	horizon := now.Add(domain.RecoveryWindow)
	var dueSoon int
	if err := tx.Tx.QueryRowContext(ctx, `SELECT count(*) FROM webhook_deliveries
		WHERE webhook_id = $1 AND status = 'Pending' AND next_attempt_at <= $2`, webhookID, horizon).Scan(&dueSoon); err != nil {
		return err
	}
	slots := domain.RecoverySlots(now, dueSoon)
	if len(slots) == 0 {
		return nil
	}
	_, err := tx.Tx.ExecContext(ctx, `WITH waiting AS (
			SELECT d.id, d.next_attempt_at FROM webhook_deliveries d
			WHERE d.webhook_id = $1 AND d.status = 'Pending' AND d.next_attempt_at > $2
			  AND EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.attempt = d.attempt)
			ORDER BY d.next_attempt_at, d.id LIMIT $3 FOR UPDATE OF d SKIP LOCKED),
		numbered AS (SELECT id, row_number() OVER (ORDER BY next_attempt_at, id) AS n FROM waiting)
		UPDATE webhook_deliveries d SET next_attempt_at = ($4::timestamptz[])[numbered.n], updated_at = now()
		FROM numbered WHERE d.id = numbered.id`, webhookID, horizon, len(slots), slots)
	return err
}

// PruneHistory keeps docs/architecture.md's 30 days of history: it deletes attempt
// logs, finished deliveries and outbox events older than before. An event
// goes only once every durable consumer has passed it and no delivery still
// refers to it, so nothing is lost that could still be delivered or
// redelivered. It returns how many rows went.
func (s *WebhookStore) PruneHistory(ctx context.Context, before time.Time) (int64, error) {
	var total int64
	err := s.db.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []string{
			"DELETE FROM webhook_attempts WHERE attempted_at < ?",
			"DELETE FROM webhook_deliveries WHERE status <> 'Pending' AND updated_at < ?",
			`DELETE FROM events e WHERE e.created_at < ?
			   AND NOT EXISTS (SELECT 1 FROM event_cursors c WHERE (c.last_xact, c.last_seq) < (e.xact, e.seq))
			   AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_seq = e.seq)`,
		} {
			res, err := tx.ExecContext(ctx, q, before)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			total += n
		}
		return nil
	})
	return total, err
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
