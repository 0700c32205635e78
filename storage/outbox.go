package storage

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"go.opentelemetry.io/otel/trace"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// NotifyChannel is the channel the events table's trigger notifies on commit.
const NotifyChannel = "haulgraph_events"

// OutboxEvent is one stored event: the envelope of docs/api-contract.md §6.3 (payload, with
// data.diff.previousAttributes) and what routing needs.
type OutboxEvent struct {
	Seq          int64           `db:"seq"`
	Xact         int64           `db:"xact"`
	ID           string          `db:"id"`
	TenantID     uuid.UUID       `db:"tenant_id"`
	SubsidiaryID *uuid.UUID      `db:"subsidiary_id"`
	Type         string          `db:"type"`
	SubjectID    uuid.UUID       `db:"subject_id"`
	Payload      json.RawMessage `db:"payload"`
	CreatedAt    time.Time       `db:"created_at"`
	// Traceparent is the W3C trace context of the write (NULL: none known).
	Traceparent *string `db:"traceparent"`
}

// Pos is the event's place in the outbox order.
func (e *OutboxEvent) Pos() eventlog.Position {
	return eventlog.Position{Xact: e.Xact, Seq: e.Seq}
}

// appendEvents queues the insert of events in the transaction: they commit,
// or vanish, with the write they describe. The column default records the
// writing transaction's id (xact); writers do not wait for one another
// (0010_outbox_horizon.sql). A write that emits events about a load must have
// locked that load's row before its first write in the transaction, so that
// transaction ids, and with them the outbox order, follow the row lock.
// Each event keeps the write's trace context (traceparentOf), taken here
// rather than for every transaction: reads need none.
func (t *Tx) appendEvents(ctx context.Context, events []domain.Event) error {
	tp := traceparentOf(ctx)
	for _, e := range events {
		payload, err := e.MarshalEnvelope()
		if err != nil {
			return err
		}
		t.exec(insertEventSQL, e.ID, e.TenantID, e.SubsidiaryID, e.Type, e.SubjectID, payload, tp)
		if t.appended != nil {
			t.appended(eventlog.ChannelOutbox, e.Type, payload)
		}
	}
	return nil
}

const insertEventSQL = "INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload, traceparent) VALUES ($1, $2, $3, $4, $5, $6, $7)"

// traceparentOf is the W3C traceparent of the write in ctx, kept with its
// events so that their deliveries continue its trace: the span's when
// tracing is on, else the request's trace id (httpedge.Observer) with a new
// span id; nil outside a request.
func traceparentOf(ctx context.Context) *string {
	var tp string
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		tp = "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-" + sc.TraceFlags().String()
	} else if id := domain.TraceIDFrom(ctx); len(id) == 32 {
		span := uuid.New()
		tp = "00-" + id + "-" + trace.SpanID(span[:8]).String() + "-01"
	} else {
		return nil
	}
	return &tp
}

// Outbox reads the events table across tenants (owner rights): the relay and
// the durable consumers (webhook delivery) use it.
//
// Every read follows one order, eventlog.Position's (writing transaction
// id, then seq), and returns only final events: those whose writing
// transaction id is below the visibility horizon
// pg_snapshot_xmin(pg_current_snapshot()), i.e. every transaction that could
// still add an event before them has ended. So a reader may always advance to
// the position of the last event it was given; an event that commits late
// holds readers back, it is never skipped.
type Outbox struct{ DB *DB }

// The read statements are constant texts with bind parameters (pgx caches
// one prepared statement per connection for each).
const (
	outboxColumns = "seq, xact::text::bigint AS xact, id, tenant_id, subsidiary_id, type, subject_id, payload, created_at, traceparent"
	outboxAfter   = "SELECT " + outboxColumns + ` FROM events
		WHERE (xact, seq) > ($1::bigint::text::xid8, $2) AND xact < pg_snapshot_xmin(pg_current_snapshot())
		ORDER BY xact, seq LIMIT $3`
	// outboxAfterHeld is outboxAfter plus, in the same statement and so
	// against the same horizon, whether committed events after pos are held
	// back (one row of NULL event columns when none is final). Two statements
	// would race: the horizon can pass events between them, and a reader
	// would see neither the events nor that they were held.
	outboxAfterHeld = `SELECT held.v AS held, e.* FROM
		(SELECT EXISTS (SELECT 1 FROM events WHERE (xact, seq) > ($1::bigint::text::xid8, $2)
			AND xact >= pg_snapshot_xmin(pg_current_snapshot())) AS v) held
		LEFT JOIN LATERAL (` + outboxAfter + `) e ON true`
)

// Head is where a live tail starts (eventlog.Outbox): the position of the
// last final event, the zero position when there is none. Events that had
// committed beyond it, behind an older transaction still open, are not
// final: they are the tail's to publish (skipping them would lose them to a
// subscriber that resumes before the tail passes them).
func (o *Outbox) Head(ctx context.Context) (head eventlog.Position, err error) {
	err = o.DB.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		_, err := tx.queryRow(ctx, `SELECT xact::text::bigint, seq FROM events
			WHERE xact < pg_snapshot_xmin(pg_current_snapshot()) ORDER BY xact DESC, seq DESC LIMIT 1`,
			[]any{&head.Xact, &head.Seq})
		return err
	})
	return head, err
}

// After reads events after position pos in outbox order: up to limit final
// events (see Outbox). Give it the Pos of the last event it returned to read
// on. held reports, when fewer than limit events came back, that committed
// events after them are waiting for an older transaction to end: read again
// shortly rather than at the next notification, which that transaction need
// not send.
func (o *Outbox) After(ctx context.Context, pos eventlog.Position, limit int) (events []OutboxEvent, held bool, err error) {
	err = o.DB.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query(outboxAfterHeld, func(rows pgx.Rows) error {
			r, err := pgx.RowToStructByName[outboxHeldRow](rows)
			if err != nil {
				return err
			}
			held = r.Held
			if r.Seq != nil {
				events = append(events, OutboxEvent{Seq: *r.Seq, Xact: *r.Xact, ID: *r.ID, TenantID: *r.TenantID,
					SubsidiaryID: r.SubsidiaryID, Type: *r.Type, SubjectID: *r.SubjectID, Payload: r.Payload,
					CreatedAt: *r.CreatedAt, Traceparent: r.Traceparent})
			}
			return nil
		}, pos.Xact, pos.Seq, limit)
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	// A full batch is read on at once whatever follows it.
	return events, held && len(events) < limit, nil
}

// Consume hands the next batch (at most limit final events) after the
// durable cursor of consumer to fn, inside one transaction that also advances
// the cursor: what fn writes in tx (delivery jobs) commits with the progress,
// so a crash neither loses nor repeats a batch. The cursor row is locked, so
// among several instances one consumes at a time; a new consumer starts at
// the beginning of the outbox. It returns how many events were handed over.
func (o *Outbox) Consume(ctx context.Context, consumer string, limit int,
	fn func(ctx context.Context, tx *Tx, events []OutboxEvent) error) (int, error) {
	n := 0
	err := o.DB.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		var last eventlog.Position
		tx.exec("INSERT INTO event_cursors (consumer) VALUES ($1) ON CONFLICT DO NOTHING", consumer)
		tx.query("SELECT last_xact::text::bigint, last_seq FROM event_cursors WHERE consumer = $1 FOR UPDATE",
			func(r pgx.Rows) error { return r.Scan(&last.Xact, &last.Seq) }, consumer)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		var batch []OutboxEvent
		tx.query(outboxAfter, func(r pgx.Rows) error {
			e, err := scanOutbox(r)
			batch = append(batch, e)
			return err
		}, last.Xact, last.Seq, limit)
		if err := tx.flush(ctx); err != nil || len(batch) == 0 {
			return err
		}
		if err := fn(ctx, tx, batch); err != nil {
			return err
		}
		n = len(batch)
		end := batch[n-1].Pos()
		tx.exec("UPDATE event_cursors SET last_xact = $1::bigint::text::xid8, last_seq = $2 WHERE consumer = $3",
			end.Xact, end.Seq, consumer)
		return nil
	})
	return n, err
}

// Has reports whether the event at pos is in the outbox. A relay asks it
// of the last event it published when it reconnects: a database without it
// has lost committed transactions (a failover to a standby they had not
// reached).
func (o *Outbox) Has(ctx context.Context, pos eventlog.Position) (has bool, err error) {
	err = o.DB.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		_, err := tx.queryRow(ctx, "SELECT EXISTS (SELECT 1 FROM events WHERE xact = $1::bigint::text::xid8 AND seq = $2)",
			[]any{&has}, pos.Xact, pos.Seq)
		return err
	})
	return has, err
}

// scanOutbox reads outboxColumns.
func scanOutbox(r pgx.Rows) (OutboxEvent, error) {
	return pgx.RowToStructByName[OutboxEvent](r)
}

// outboxHeldRow is a row of outboxAfterHeld: pointers, since the row that
// says none is final has NULL event columns.
type outboxHeldRow struct {
	Held         bool            `db:"held"`
	Seq          *int64          `db:"seq"`
	Xact         *int64          `db:"xact"`
	ID           *string         `db:"id"`
	TenantID     *uuid.UUID      `db:"tenant_id"`
	SubsidiaryID *uuid.UUID      `db:"subsidiary_id"`
	Type         *string         `db:"type"`
	SubjectID    *uuid.UUID      `db:"subject_id"`
	Payload      json.RawMessage `db:"payload"`
	CreatedAt    *time.Time      `db:"created_at"`
	Traceparent  *string         `db:"traceparent"`
}
