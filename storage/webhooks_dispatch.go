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

// The delivery side of WebhookStore: webhooks.DeliveryStore. It loads what
// webhooks.Deliveries asks for and saves what it decided; the routing,
// retry and recovery rules are the domain's.

var _ webhooks.DeliveryStore = (*WebhookStore)(nil)

// WebhookCursor is the webhook dispatcher's row in event_cursors.
const WebhookCursor = "webhooks"

// pendingSQL and activeSQL are the vocabulary the delivery statements
// select by, as literals: the planner matches the partial indexes
// (webhook_deliveries_due, webhook_deliveries_pending) against them.
var (
	pendingSQL = sqlLiteral(webhooks.DeliveryPending)
	activeSQL  = sqlLiteral(webhooks.WebhookActive)
)

// DispatchEvents is webhooks.DeliveryStore's: a durable consumer of the
// outbox (Outbox.Consume) that loads the batch's tenants' webhooks, hands
// both to route and writes the deliveries route decided, in one constant
// statement; the partial unique index makes a repeated batch harmless.
func (s *WebhookStore) DispatchEvents(ctx context.Context, limit int,
	route func(events []webhooks.RoutableEvent, hooks []webhooks.Webhook) []webhooks.NewDelivery) (int, error) {
	outbox := &Outbox{DB: s.db}
	return outbox.Consume(ctx, WebhookCursor, limit, func(ctx context.Context, tx *Tx, events []OutboxEvent) error {
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
		deliveries := route(routable, hooks)
		if len(deliveries) == 0 {
			return nil
		}
		n := len(deliveries)
		tenantIDs, webhookIDs, eventIDs, statuses := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		seqs, previous, due := make([]int64, n), make([]bool, n), make([]time.Time, n)
		for i, d := range deliveries {
			tenantIDs[i], webhookIDs[i], eventIDs[i], seqs[i] = d.Event.TenantID.String(), d.Webhook.ID.String(), d.Event.ID, d.Event.Seq
			previous[i], statuses[i], due[i] = d.Webhook.IncludePreviousAttributes, d.Status, d.Due
		}
		// A delivery behind another of its load and destination (in the
		// table or in this batch) waits without a due time; recording that
		// one releases it (recordAttempt).
		tx.exec(`INSERT INTO webhook_deliveries
			(id, tenant_id, webhook_id, event_id, event_seq, status, next_attempt_at, include_previous_attributes, created_at, signature_scheme, load_key)
			SELECT d.id, d.tenant_id, d.webhook_id, d.event_id, d.event_seq, d.status,
				CASE WHEN d.load_key IS NOT NULL AND (d.place > 1 OR `+loadBusySQL+`) THEN NULL ELSE d.due END,
				d.previous, d.due, d.signature_scheme, d.load_key
			FROM (SELECT gen_random_uuid() AS id, r.*, w.signature_scheme, `+loadKeySQL+` AS load_key,
				row_number() OVER (PARTITION BY r.webhook_id, `+loadKeySQL+` ORDER BY r.event_seq) AS place
				FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::boolean[], $6::text[], $7::timestamptz[])
					AS r(tenant_id, webhook_id, event_id, event_seq, previous, status, due)
				JOIN webhooks w ON w.id = r.webhook_id JOIN events e ON e.seq = r.event_seq) d
			ON CONFLICT (webhook_id, event_seq) WHERE NOT redelivery DO NOTHING`,
			tenantIDs, webhookIDs, eventIDs, seqs, previous, statuses, due)
		return nil
	})
}

// webhooksOf loads what routing needs of every webhook of the tenants.
func webhooksOf(ctx context.Context, tx *Tx, tenants []string) ([]webhooks.Webhook, error) {
	var hooks []webhooks.Webhook
	tx.query(`SELECT id, tenant_id, subsidiary_id, state, event_types, include_previous_attributes
		FROM webhooks WHERE tenant_id = ANY($1::uuid[]) ORDER BY created_at, id`, func(r pgx.Rows) error {
		w, err := pgx.RowToStructByNameLax[webhooks.Webhook](r) // what routing reads of a webhook, no more
		hooks = append(hooks, w)
		return err
	}, tenants)
	return hooks, tx.flush(ctx)
}

// claimDeliveries is one constant statement with bind parameters: pgx
// prepares it once per connection, not once per poll. Two rules run here,
// in SQL because they must hold atomically with the claim, and only here:
// a delivery is sent only while its webhook is Active (the SQL twin of
// webhooks.State.Delivering, kept in step by TestClaimSendsForDeliveringStatesOnly),
// and an attempt's number in its retry chain is attempt - chain_base
// (RecoverDeliveries starts a new chain).
var claimDeliveries = `WITH c AS (
	UPDATE webhook_deliveries d SET attempt = d.attempt + 1, next_attempt_at = $1, updated_at = now()
	FROM (SELECT d2.id FROM webhook_deliveries d2 JOIN webhooks w ON w.id = d2.webhook_id
	      WHERE d2.status = ` + pendingSQL + ` AND d2.next_attempt_at <= $2 AND w.state = ` + activeSQL + `
	      ORDER BY d2.next_attempt_at LIMIT $3 FOR UPDATE OF d2 SKIP LOCKED) due
	WHERE d.id = due.id
	RETURNING d.id, d.tenant_id, d.webhook_id, d.event_id, d.event_seq, d.attempt, d.chain_base, d.include_previous_attributes, d.load_key)
	SELECT c.id, c.tenant_id, c.webhook_id, c.event_id, e.type AS event_type, c.attempt,
	       c.attempt - c.chain_base AS chain_attempt, c.include_previous_attributes, w.url, w.signature_scheme,
	       w.secret_ciphertext, w.previous_secret_ciphertext, w.previous_secret_expires_at, e.payload,
	       w.failing_since, coalesce(e.traceparent, '') AS traceparent,
	       w.type, w.broker, w.credentials_ciphertext, t.slug AS tenant_slug, coalesce(c.load_key, '') AS load_key
	FROM c JOIN webhooks w ON w.id = c.webhook_id JOIN events e ON e.seq = c.event_seq JOIN tenants t ON t.id = c.tenant_id`

// loadKeySQL is a delivery's load_key: its event's load number, which
// orders the deliveries of one load to one destination (claimDeliveries).
const loadKeySQL = `e.payload #>> '{data,load,LoadNumber}'`

// loadBusySQL holds while the delivery d must wait without a due time:
// another Pending delivery of its load and destination is due or in
// flight (a redelivery too), or waits ahead of it. Every statement that
// makes a delivery of a load due or waiting asks it.
var loadBusySQL = `EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.webhook_id = d.webhook_id AND p.load_key = d.load_key
	AND p.status = ` + pendingSQL + ` AND p.id <> d.id AND (p.next_attempt_at IS NOT NULL OR p.event_seq < d.event_seq))`

// releasableSQL is a waiting delivery d whose load is no longer busy.
var releasableSQL = `d.status = ` + pendingSQL + ` AND d.next_attempt_at IS NULL AND NOT ` + loadBusySQL

// ClaimDeliveries is webhooks.DeliveryStore's. FOR UPDATE SKIP LOCKED keeps
// concurrent workers (in this or another instance) off each other's rows,
// and the claim moves next_attempt_at to leaseUntil and bumps the attempt
// number in the same statement, so a claimed attempt is not due for anyone
// else; if the worker dies, the lease expires and the attempt is made again
// (at-least-once). A previous secret is opened with its end as saved:
// webhooks.Deliveries.Claim drops it once its rotation is over.
func (s *WebhookStore) ClaimDeliveries(ctx context.Context, now, leaseUntil time.Time, limit int) ([]webhooks.ClaimedDelivery, error) {
	var rows []claimRow
	err := s.db.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		selectRows(tx, &rows, claimDeliveries, leaseUntil, now, limit)
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]webhooks.ClaimedDelivery, 0, len(rows))
	for _, r := range rows {
		secret, err := s.box.Open(r.Secret, secretAAD(r.WebhookID))
		if err != nil {
			return nil, fmt.Errorf("webhook %s: %w", r.WebhookID, err)
		}
		c := webhooks.ClaimedDelivery{ID: r.ID, TenantID: r.TenantID, WebhookID: r.WebhookID, EventID: r.EventID,
			EventType: r.EventType, Attempt: r.Attempt, ChainAttempt: r.ChainAttempt, IncludePreviousAttributes: r.IncludePreviousAttributes,
			URL: r.URL, Scheme: webhooks.SignatureScheme(r.Scheme), Secret: string(secret),
			PreviousSecretExpires: r.PreviousSecretExpires, Payload: r.Payload, FailingSince: r.FailingSince, Traceparent: r.Traceparent,
			Type: r.Type, Target: webhooks.Target{TenantSlug: r.TenantSlug}, Load: r.Load}
		if r.Previous != nil {
			prev, err := s.box.Open(r.Previous, secretAAD(r.WebhookID))
			if err != nil {
				return nil, fmt.Errorf("webhook %s: %w", r.WebhookID, err)
			}
			c.PreviousSecret = string(prev)
		}
		if err := s.openTarget(&c, r.Broker, r.Credentials); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// claimRow is a row of claimDeliveries: the claimed delivery with its
// secrets sealed.
type claimRow struct {
	ID                        uuid.UUID        `db:"id"`
	TenantID                  uuid.UUID        `db:"tenant_id"`
	WebhookID                 uuid.UUID        `db:"webhook_id"`
	EventID                   string           `db:"event_id"`
	EventType                 string           `db:"event_type"`
	Attempt                   int              `db:"attempt"`
	ChainAttempt              int              `db:"chain_attempt"`
	IncludePreviousAttributes bool             `db:"include_previous_attributes"`
	URL                       string           `db:"url"`
	Scheme                    string           `db:"signature_scheme"`
	Secret                    []byte           `db:"secret_ciphertext"`
	Previous                  []byte           `db:"previous_secret_ciphertext"`
	PreviousSecretExpires     *time.Time       `db:"previous_secret_expires_at"`
	Payload                   json.RawMessage  `db:"payload"`
	FailingSince              *time.Time       `db:"failing_since"`
	Traceparent               string           `db:"traceparent"`
	Type                      webhooks.Type    `db:"type"`
	Broker                    *webhooks.Broker `db:"broker"`
	Credentials               []byte           `db:"credentials_ciphertext"`
	TenantSlug                string           `db:"tenant_slug"`
	Load                      string           `db:"load_key"`
}

// recordAttempt saves what webhooks.DecideAttempt decided after an attempt,
// and releases the next waiting delivery of its load once it is finished
// and the load no longer busy, in one statement (one round trip, no BEGIN
// or COMMIT): it logs the attempt, moves the delivery on and saves the webhook's failing_since and,
// when decided, its disabling (from the decision's state only). The claim
// was the load and its lease the lock: only the worker holding attempt
// c.Attempt of a still Pending delivery moves it; a stale one (its lease
// expired and the attempt was claimed again) records the log line and
// changes nothing else.
var recordAttempt = `WITH attempt AS (
		INSERT INTO webhook_attempts (id, tenant_id, delivery_id, attempt, status_code, latency_ms, error, attempted_at, signature_scheme)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)),
	moved AS (
		UPDATE webhook_deliveries SET status = $10, next_attempt_at = $11, updated_at = now()
		WHERE id = $3 AND attempt = $4 AND status = ` + pendingSQL + ` RETURNING 1),
	hook AS (
		-- The earliest failing_since stays: decided here, atomically with
		-- concurrent attempts (AttemptDecision.FailingSince is this attempt's view).
		UPDATE webhooks SET failing_since = CASE WHEN $12::timestamptz IS NULL THEN NULL ELSE coalesce(failing_since, $12) END,
			state = CASE WHEN $13 AND state = $17 THEN $14 ELSE state END,
			state_reason = CASE WHEN $13 AND state = $17 THEN $15 ELSE state_reason END,
			updated_at = CASE WHEN $13 AND state = $17 THEN now() ELSE updated_at END
		WHERE id = $16 AND EXISTS (SELECT 1 FROM moved)
		  AND ($13 OR failing_since IS DISTINCT FROM $12::timestamptz AND ($12::timestamptz IS NULL OR failing_since IS NULL))
		RETURNING 1),
	released AS (
		UPDATE webhook_deliveries SET next_attempt_at = $8, updated_at = now()
		WHERE id = (SELECT n.id FROM webhook_deliveries n WHERE n.webhook_id = $16 AND n.load_key = $18
		            AND n.status = ` + pendingSQL + ` AND n.next_attempt_at IS NULL ORDER BY n.event_seq LIMIT 1)
		  AND $10 <> ` + pendingSQL + ` AND EXISTS (SELECT 1 FROM moved)
		  -- loadBusySQL for the load's first waiting delivery, which nothing
		  -- waits ahead of: only a due or in-flight one holds it, the one
		  -- recorded here aside (this statement still reads it Pending).
		  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries p WHERE p.webhook_id = $16 AND p.load_key = $18
		                  AND p.status = ` + pendingSQL + ` AND p.id <> $3 AND p.next_attempt_at IS NOT NULL)
		RETURNING 1)
	SELECT EXISTS (SELECT 1 FROM moved)`

// RecordAttempt is webhooks.DeliveryStore's (see recordAttempt).
func (s *WebhookStore) RecordAttempt(ctx context.Context, c webhooks.ClaimedDelivery, l webhooks.AttemptLog, d webhooks.AttemptDecision) (moved bool, err error) {
	var errText *string
	if l.Error != "" {
		e := truncate(l.Error, 1000)
		errText = &e
	}
	err = s.db.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query(recordAttempt, func(r pgx.Rows) error { return r.Scan(&moved) },
			l.AttemptID, c.TenantID, c.ID, c.Attempt, l.StatusCode, l.Latency.Milliseconds(), errText, l.At, string(c.Scheme),
			d.Status, d.NextAttemptAt, d.FailingSince, d.Disable, string(d.To), d.Reason, c.WebhookID, string(d.From), c.Load)
		return nil
	})
	return moved, err
}

// BringForward is webhooks.DeliveryStore's: the recovery of an endpoint
// that answers again. Only deliveries whose last attempt has been recorded
// (not one in flight) move.
func (s *WebhookStore) BringForward(ctx context.Context, webhookID uuid.UUID, horizon time.Time, limit int,
	plan func(dueSoon int, waiting []uuid.UUID) map[uuid.UUID]time.Time) error {
	return s.db.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		var dueSoon int
		var waiting []uuid.UUID
		tx.query(`SELECT count(*) FROM webhook_deliveries WHERE webhook_id = $1 AND status = `+pendingSQL+` AND next_attempt_at <= $2`,
			func(r pgx.Rows) error { return r.Scan(&dueSoon) }, webhookID, horizon)
		tx.query(`SELECT d.id FROM webhook_deliveries d
			WHERE d.webhook_id = $1 AND d.status = `+pendingSQL+` AND d.next_attempt_at > $2
			  AND EXISTS (SELECT 1 FROM webhook_attempts a WHERE a.delivery_id = d.id AND a.attempt = d.attempt)
			ORDER BY d.next_attempt_at, d.id LIMIT $3 FOR UPDATE OF d SKIP LOCKED`, func(r pgx.Rows) error {
			var id uuid.UUID
			err := r.Scan(&id)
			waiting = append(waiting, id)
			return err
		}, webhookID, horizon, limit)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		moves := plan(dueSoon, waiting)
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

// PruneHistory is webhooks.DeliveryStore's: it deletes attempt logs,
// finished deliveries and outbox events older than before. An event goes
// only once every durable consumer has passed it and no delivery still
// refers to it, so nothing is lost that could still be delivered or
// redelivered. It returns how many rows went.
func (s *WebhookStore) PruneHistory(ctx context.Context, before time.Time) (int64, error) {
	var n [3]int64
	err := s.db.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		for i, q := range []string{
			"DELETE FROM webhook_attempts WHERE attempted_at < $1",
			"DELETE FROM webhook_deliveries WHERE status <> " + pendingSQL + " AND updated_at < $1",
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

// ReleaseWaiting is webhooks.DeliveryStore's: every waiting delivery (no
// due time) whose load is no longer busy is due at now. Recording an
// attempt releases the next one at once; this mends the race of a delivery
// dispatched behind one recorded meanwhile.
func (s *WebhookStore) ReleaseWaiting(ctx context.Context, now time.Time) (int64, error) {
	var n int64
	err := s.db.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		tx.execCount(&n, `UPDATE webhook_deliveries d SET next_attempt_at = $1, updated_at = now() WHERE `+releasableSQL, now)
		return nil
	})
	return n, err
}
