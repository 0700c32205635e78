package storage_test

import (
	"context"
	"testing"

	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// TestMigrateToleratesNewerMigrations: on a database a later release has
// migrated (a migration this binary does not know is recorded), Migrate
// applies nothing and succeeds, and none counts as pending for /readyz:
// this release can still serve, and be rolled back to, after the next
// one's `haulgraph migrate` (docs/deploy.md).
func TestMigrateToleratesNewerMigrations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	if _, err := db.Pool.Exec(ctx, "INSERT INTO schema_migrations (version) VALUES ('9999_from_a_later_release')"); err != nil {
		t.Fatal(err)
	}
	if err := db.Migrate(ctx); err != nil {
		t.Fatalf("Migrate with a newer migration recorded: %v", err)
	}
	if n, err := db.PendingMigrations(ctx); err != nil || n != 0 {
		t.Fatalf("pending migrations: %d %v", n, err)
	}
}
