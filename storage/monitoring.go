package storage

import (
	"context"
	"io/fs"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// OutboxLag is what the webhook dispatcher has not consumed yet: how many
// events (counted up to MaxOutboxLagCount) and the age of the oldest.
type OutboxLag struct {
	Events           int64
	OldestAgeSeconds float64
}

// MaxOutboxLagCount bounds the count of unconsumed events a scrape makes.
const MaxOutboxLagCount = 100000

// OutboxLag reads the webhook cursor's lag behind the outbox (index range
// on events (xact, seq)); ctx bounds it.
func (db *DB) OutboxLag(ctx context.Context) (OutboxLag, error) {
	var lag OutboxLag
	err := db.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query(`
		WITH cursor AS (
			SELECT coalesce((SELECT last_xact FROM event_cursors WHERE consumer = $1), '0'::xid8) AS xact,
			       coalesce((SELECT last_seq FROM event_cursors WHERE consumer = $1), 0) AS seq),
		pending AS (
			SELECT e.created_at FROM events e, cursor c WHERE (e.xact, e.seq) > (c.xact, c.seq)
			ORDER BY e.xact, e.seq LIMIT $2)
		SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 FROM pending`,
			func(r pgx.Rows) error { return r.Scan(&lag.Events, &lag.OldestAgeSeconds) }, WebhookCursor, MaxOutboxLagCount)
		return nil
	})
	return lag, err
}

// DeliveryBacklog counts webhook deliveries still pending and those failed
// for good.
func (db *DB) DeliveryBacklog(ctx context.Context) (pending, failed int64, err error) {
	err = db.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query(`SELECT
			(SELECT count(*) FROM webhook_deliveries WHERE status = `+sqlLiteral(webhooks.DeliveryPending)+`),
			(SELECT count(*) FROM webhook_deliveries WHERE status = `+sqlLiteral(webhooks.DeliveryFailed)+`)`,
			func(r pgx.Rows) error { return r.Scan(&pending, &failed) })
		return nil
	})
	return pending, failed, err
}

// PendingMigrations counts the embedded migrations the database has not
// applied: an instance with pending ones is not ready.
func (db *DB) PendingMigrations(ctx context.Context) (int, error) {
	names, err := fs.Glob(migrationFiles, "migrations/*.sql")
	if err != nil {
		return 0, err
	}
	versions := make([]string, len(names))
	for i, n := range names {
		versions[i] = strings.TrimSuffix(strings.TrimPrefix(n, "migrations/"), ".sql")
	}
	var applied int
	err = db.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT count(*) FROM schema_migrations WHERE version = ANY($1)", func(r pgx.Rows) error { return r.Scan(&applied) }, versions)
		return nil
	})
	return len(versions) - applied, err
}
