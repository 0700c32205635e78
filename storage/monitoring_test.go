package storage_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// The outbox lag counts what the webhook cursor has not consumed and the
// age of the oldest; consuming brings it to zero.
func TestOutboxLagFollowsTheWebhookCursor(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	tenant := uuid.New()
	if _, err := db.Pool.Exec(ctx, "INSERT INTO tenants (id, slug, name) VALUES ($1, 'lag', 'Lag')", tenant); err != nil {
		t.Fatal(err)
	}
	if lag, err := db.OutboxLag(ctx); err != nil || lag != (storage.OutboxLag{}) {
		t.Fatalf("empty outbox: %+v %v", lag, err)
	}
	for _, age := range []string{"90 seconds", "1 second"} {
		if _, err := db.Pool.Exec(ctx, `INSERT INTO events (id, tenant_id, type, subject_id, payload, created_at)
			VALUES ($1, $2, 'load.changed', $3, '{}', now() - $4::interval)`, "evt_"+uuid.NewString(), tenant, uuid.New(), age); err != nil {
			t.Fatal(err)
		}
	}
	lag, err := db.OutboxLag(ctx)
	if err != nil || lag.Events != 2 || lag.OldestAgeSeconds < 90 || lag.OldestAgeSeconds > 3600 {
		t.Fatalf("two events waiting, the oldest 90 s old: %+v %v", lag, err)
	}
	dbtest.WaitOutboxFinal(t, db)
	n, err := (&storage.Outbox{DB: db}).Consume(ctx, storage.WebhookCursor, 10, func(context.Context, *storage.Tx, []storage.OutboxEvent) error { return nil })
	if err != nil || n != 2 {
		t.Fatalf("consume: %d %v", n, err)
	}
	if lag, err := db.OutboxLag(ctx); err != nil || lag != (storage.OutboxLag{}) {
		t.Fatalf("after consuming: %+v %v", lag, err)
	}
	if pending, err := db.PendingMigrations(ctx); err != nil || pending != 0 {
		t.Fatalf("pending migrations on a migrated database: %d %v", pending, err)
	}
}
