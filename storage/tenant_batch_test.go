package storage_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// The hot reads bind the tenant in the same round trip as their queries, with
// no explicit transaction: row-level security must hold for every statement
// of the batch, and nothing of the tenant may outlive it on the connection.
func TestTenantBatchKeepsRowLevelSecurity(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	a, b := uuid.New(), uuid.New()
	for i, id := range []uuid.UUID{a, b} {
		err := db.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "INSERT INTO tenants (id, slug, name) VALUES (?, ?, 'T')", id, []string{"alpha", "beta"}[i]); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'Main')", uuid.New(), id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var owner string
	if err := conn.QueryRow(ctx, "SELECT current_user").Scan(&owner); err != nil {
		t.Fatal(err)
	}

	// Queries that forget their WHERE tenant_id still see one tenant, every
	// one of them, not only the first after set_config.
	got, err := storage.TenantBatchOn(ctx, conn, a,
		"SELECT tenant_id::text FROM subsidiaries",
		"SELECT count(*)::text FROM tenants",
		"SELECT current_user::text",
		"SELECT tenant_id::text FROM subsidiaries")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0], []string{a.String()}) || !slices.Equal(got[3], []string{a.String()}) {
		t.Errorf("tenant A's batch sees subsidiaries of %v and %v, want only %s", got[0], got[3], a)
	}
	if !slices.Equal(got[1], []string{"1"}) || !slices.Equal(got[2], []string{"haulgraph_tenant"}) {
		t.Errorf("tenant A's batch sees %v tenants as %v; want 1 as haulgraph_tenant", got[1], got[2])
	}

	// After the batch the connection is the owner's again, with no tenant,
	// and not inside a transaction.
	assertClean := func(when string) {
		t.Helper()
		var user, tenant string
		if err := conn.QueryRow(ctx, "SELECT current_user, coalesce(current_setting('app.tenant_id', true), '')").Scan(&user, &tenant); err != nil {
			t.Fatal(err)
		}
		if user != owner || tenant != "" || conn.Conn().PgConn().TxStatus() != 'I' {
			t.Errorf("%s: connection left as %q with tenant %q, status %c; want %q, none, idle", when, user, tenant, conn.Conn().PgConn().TxStatus(), owner)
		}
	}
	assertClean("after a batch")

	// A batch that fails half-way leaves nothing behind either.
	if _, err := storage.TenantBatchOn(ctx, conn, b, "SELECT tenant_id::text FROM subsidiaries", "SELECT (1/0)::text"); err == nil {
		t.Fatal("a batch with a failing query reported no error")
	}
	assertClean("after a failed batch")

	// And a write for another tenant is refused inside a batch as well.
	if _, err := storage.TenantBatchOn(ctx, conn, a, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (gen_random_uuid(), '"+b.String()+"', 'Sneaky') RETURNING id::text"); err == nil {
		t.Error("tenant A's batch inserted a row for tenant B")
	}
	assertClean("after a refused write")
}
