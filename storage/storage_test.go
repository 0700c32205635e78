package storage_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

func TestMigrateTwice(t *testing.T) {
	t.Parallel()
	db, err := storage.Open(context.Background(), dbtest.EmptyURL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("first migrate: %v", err)
	}
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("second migrate: %v", err)
	}
	var n int
	if err := db.Bun.QueryRowContext(context.Background(), "SELECT count(*) FROM schema_migrations").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no migration recorded")
	}
}

func TestEveryTenantTableHasRowLevelSecurity(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	rows, err := db.Bun.QueryContext(context.Background(), `
		SELECT c.relname FROM pg_class c
		JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id'
		WHERE c.relkind = 'r' AND c.relnamespace = 'public'::regnamespace AND NOT c.relrowsecurity`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		_ = rows.Scan(&name)
		t.Errorf("table %s has tenant_id but no row-level security", name)
	}
}

func TestRowLevelSecurityHidesOtherTenants(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	a, b := uuid.New(), uuid.New()
	for i, id := range []uuid.UUID{a, b} {
		sub := uuid.New()
		err := db.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "INSERT INTO tenants (id, slug, name) VALUES (?, ?, ?)", id, []string{"alpha", "beta"}[i], "T"); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'Main')", sub, id)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	// A query that forgets its WHERE tenant_id still sees one tenant only.
	err := db.InTenant(ctx, a, func(ctx context.Context, tx bun.Tx) error {
		var tenants []uuid.UUID
		if err := tx.NewSelect().Table("subsidiaries").Column("tenant_id").Scan(ctx, &tenants); err != nil {
			return err
		}
		if len(tenants) != 1 || tenants[0] != a {
			t.Errorf("tenant A sees subsidiaries of %v, want only %v", tenants, a)
		}
		var visible int
		if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM tenants").Scan(&visible); err != nil {
			return err
		}
		if visible != 1 {
			t.Errorf("tenant A sees %d tenants, want 1", visible)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Writing a row for another tenant is refused too.
	err = db.InTenant(ctx, a, func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'Sneaky')", uuid.New(), b)
		return err
	})
	if err == nil {
		t.Error("tenant A inserted a row for tenant B")
	}
	var all int
	if err := db.Bun.QueryRowContext(ctx, "SELECT count(*) FROM subsidiaries").Scan(&all); err != nil {
		t.Fatal(err)
	}
	if all != 2 {
		t.Fatalf("system sees %d subsidiaries, want 2", all)
	}
}

func TestTenantTransactionNeedsTenant(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	err := db.InTenant(context.Background(), uuid.Nil, func(context.Context, bun.Tx) error { return nil })
	if err == nil {
		t.Fatal("a tenant transaction without a tenant was allowed")
	}
}
