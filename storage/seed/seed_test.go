package seed_test

import (
	"context"
	"errors"
	"testing"

	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// digests returns, per table of the schema, a row count and an md5 over the
// rows' text in a fixed order. response_versions is left out: it counts the
// writing transactions (the response cache's freshness), not data, and the
// two ways of copying commit in different batches.
func digests(t *testing.T, db *storage.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	rows, err := db.Pool.Query(ctx, `SELECT table_name FROM information_schema.tables
		WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name NOT IN ('schema_migrations', 'response_versions')`)
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	out := map[string]string{}
	for _, name := range tables {
		var d string
		q := `SELECT count(*)::text || ':' || coalesce(md5(string_agg(t::text, ',' ORDER BY t::text)), '') FROM ` + name + ` t`
		if err := db.Pool.QueryRow(ctx, q).Scan(&d); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out[name] = d
	}
	return out
}

func run(t *testing.T, db *storage.DB, slug string, scale int) *seed.Result {
	t.Helper()
	res, err := seed.Run(context.Background(), db, seed.Options{Tenant: slug, Scale: scale})
	if err != nil {
		t.Fatalf("seed %s scale %d: %v", slug, scale, err)
	}
	return res
}

func TestSeedIsDeterministic(t *testing.T) {
	t.Parallel()
	a, b, c := dbtest.New(t), dbtest.New(t), dbtest.New(t)
	ra := run(t, a, "acme", 1)
	// The second seed keeps the per-row foreign-key checks: both ways of
	// copying must write the same rows.
	rb, err := seed.Run(context.Background(), b, seed.Options{Tenant: "acme", Scale: 1, CheckReferences: true})
	if err != nil {
		t.Fatal(err)
	}
	run(t, c, "acme", 2)
	da, db, dc := digests(t, a), digests(t, b), digests(t, c)
	for table, d := range da {
		if db[table] != d {
			t.Errorf("table %s differs between two scale-1 seeds: %s vs %s", table, d, db[table])
		}
	}
	if ra.TenantID != rb.TenantID || ra.Invoice != rb.Invoice || ra.TripID != rb.TripID {
		t.Errorf("well-known keys differ: %+v vs %+v", ra, rb)
	}
	for _, table := range []string{"settlement_statements", "statement_line_items", "loads", "stops", "trips", "invoices", "locations", "users", "trailers"} {
		if da[table] == dc[table] {
			t.Errorf("table %s is the same at scale 1 and scale 2", table)
		}
	}
}

func TestSeedRefusesAnExistingTenantAndKeepsTenantsApart(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	first := run(t, db, "acme", 1)
	_, err := seed.Run(context.Background(), db, seed.Options{Tenant: "acme", Scale: 1})
	if !errors.Is(err, seed.ErrTenantExists) {
		t.Fatalf("second seed of acme: got %v, want ErrTenantExists", err)
	}
	other := run(t, db, "globex", 1)
	if other.TenantID == first.TenantID || other.Invoice.ID == first.Invoice.ID || other.DriverID == first.DriverID {
		t.Fatal("two tenants share ids")
	}
	var statements int
	if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM settlement_statements WHERE tenant_id = $1`, first.TenantID).Scan(&statements); err != nil {
		t.Fatal(err)
	}
	if statements != first.Counts["settlement_statements"] {
		t.Fatalf("acme has %d statements after the refused reseed, want %d", statements, first.Counts["settlement_statements"])
	}
	for _, bad := range []seed.Options{{Tenant: "Bad Slug"}, {Tenant: "ok", Scale: -1}, {Tenant: "ok", Scale: seed.MaxScale + 1}} {
		if _, err := seed.Run(context.Background(), db, bad); err == nil {
			t.Errorf("seed %+v succeeded, want an error", bad)
		}
	}
}

// TestSeedLeavesTablesVacuumed: a seed ends with VACUUM (ANALYZE) of every
// table it loaded (autovacuum's runs are counted apart, as last_autovacuum).
func TestSeedLeavesTablesVacuumed(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	if _, err := seed.Run(context.Background(), db, seed.Options{Tenant: "acme", Scale: 1}); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Pool.Query(context.Background(), `SELECT relname FROM pg_stat_user_tables
		WHERE relname = ANY($1) AND (last_vacuum IS NULL OR last_analyze IS NULL)`, seed.SeededTables())
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		_ = rows.Scan(&name)
		t.Errorf("%s was not vacuumed and analyzed by the seed", name)
	}
}
