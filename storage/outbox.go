package storage

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
)

// NotifyChannel is the channel the events table's trigger notifies on commit.
const NotifyChannel = "haulgraph_events"

// OutboxEvent is one stored event: the envelope of spec 6.3 (payload, with
// data.diff.previousAttributes) and what routing needs.
type OutboxEvent struct {
	bun.BaseModel `bun:"table:events"`
	Seq           int64           `bun:"seq,pk,autoincrement"`
	ID            string          `bun:"id"`
	TenantID      uuid.UUID       `bun:"tenant_id"`
	SubsidiaryID  *uuid.UUID      `bun:"subsidiary_id"`
	Type          string          `bun:"type"`
	SubjectID     uuid.UUID       `bun:"subject_id"`
	Payload       json.RawMessage `bun:"payload,type:jsonb"`
	CreatedAt     time.Time       `bun:"created_at,nullzero,default:now()"`
}

// appendEvents inserts events in the caller's transaction: they commit, or
// vanish, with the write they describe. The table's statement trigger takes
// the outbox lock (0004_events.sql), so seq values commit in order.
func appendEvents(ctx context.Context, tx bun.IDB, events []domain.Event) error {
	if len(events) == 0 {
		return nil
	}
	rows := make([]OutboxEvent, len(events))
	for i, e := range events {
		payload, err := e.MarshalEnvelope()
		if err != nil {
			return err
		}
		sub := e.SubsidiaryID
		rows[i] = OutboxEvent{ID: e.ID, TenantID: e.TenantID, SubsidiaryID: &sub, Type: e.Type, SubjectID: e.SubjectID, Payload: payload}
	}
	_, err := tx.NewInsert().Model(&rows).ExcludeColumn("seq", "created_at").Exec(ctx)
	return err
}

// Outbox reads the events table across tenants (owner rights): the relay and
// the durable consumers (webhook delivery) use it.
type Outbox struct{ DB *DB }

// Head is the highest committed seq (0 when empty): where a tail starts.
func (o *Outbox) Head(ctx context.Context) (int64, error) {
	var seq int64
	err := o.DB.Pool.QueryRow(ctx, "SELECT coalesce(max(seq), 0) FROM events").Scan(&seq)
	return seq, err
}

// After returns up to limit events with seq > after, in seq order. Because
// inserts are serialized until commit, no event with a lower seq can appear
// later: a reader may safely advance to the last seq it saw.
func (o *Outbox) After(ctx context.Context, after int64, limit int) ([]OutboxEvent, error) {
	var out []OutboxEvent
	err := o.DB.Bun.NewSelect().Model(&out).Where("seq > ?", after).Order("seq").Limit(int64(limit)).Scan(ctx)
	return out, err
}

// Consume hands the next batch (at most limit events) after the durable
// cursor of consumer to fn, inside one transaction that also advances the
// cursor: what fn writes in tx (delivery jobs) commits with the progress, so
// a crash neither loses nor repeats a batch. The cursor row is locked, so
// among several instances one consumes at a time; a new consumer starts at
// the beginning of the outbox. It returns how many events were handed over.
func (o *Outbox) Consume(ctx context.Context, consumer string, limit int,
	fn func(ctx context.Context, tx bun.Tx, events []OutboxEvent) error) (int, error) {
	n := 0
	err := o.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO event_cursors (consumer) VALUES (?) ON CONFLICT DO NOTHING", consumer); err != nil {
			return err
		}
		var last int64
		if err := tx.NewRaw("SELECT last_seq FROM event_cursors WHERE consumer = ? FOR UPDATE", consumer).Scan(ctx, &last); err != nil {
			return err
		}
		var batch []OutboxEvent
		if err := tx.NewSelect().Model(&batch).Where("seq > ?", last).Order("seq").Limit(int64(limit)).Scan(ctx); err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		if err := fn(ctx, tx, batch); err != nil {
			return err
		}
		n = len(batch)
		_, err := tx.ExecContext(ctx, "UPDATE event_cursors SET last_seq = ? WHERE consumer = ?", batch[n-1].Seq, consumer)
		return err
	})
	return n, err
}
