package storage_test

import (
	"context"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/readstest"
)

// TestSearchTotalFollowsWrites: the search's Total (kept from per-day
// counts, 0018) equals a count of the visible statements after every kind
// of write — a status change either way, a moved date, a changed driver
// type, a delete, a bulk insert — for every window and driver type, and
// never counts another tenant's statements.
func TestSearchTotalFollowsWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	f := readstest.NewTenant(t, db, "acme")
	readstest.NewTenant(t, db, "other")
	r := &storage.Reads{DB: db}
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := db.Pool.Exec(ctx, q, args...); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string) {
		t.Helper()
		types := []*domain.DriverType{nil}
		for _, dt := range domain.DriverTypes {
			types = append(types, &dt)
		}
		for _, w := range [][2]int{{0, 29}, {0, 0}, {3, 9}, {10, 40}} {
			for _, dt := range types {
				q := stmtQuery(w[0], w[1], domain.Window{Limit: 1})
				q.DriverType = dt
				page, err := r.SearchStatements(ctx, f.Tenant, q)
				if err != nil {
					t.Fatal(err)
				}
				var want int
				if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM settlement_statements WHERE tenant_id = $1
					AND status IN ('Processed', 'Failed') AND statement_date BETWEEN $2 AND $3 AND ($4::text IS NULL OR driver_type = $4)`,
					f.Tenant, q.From.Time, q.To.Time, dt).Scan(&want); err != nil {
					t.Fatal(err)
				}
				if page.Total != want {
					t.Fatalf("%s: days %v, driver type %v: Total %d, want %d", step, w, dt, page.Total, want)
				}
			}
		}
	}
	check("seeded")
	exec(`UPDATE settlement_statements SET status = 'Draft' WHERE tenant_id = $1 AND number IN (1, 2, 5)`, f.Tenant)
	check("hidden")
	exec(`UPDATE settlement_statements SET status = 'Processed' WHERE tenant_id = $1 AND number IN (6, 7)`, f.Tenant)
	check("shown")
	exec(`UPDATE settlement_statements SET statement_date = statement_date + 20 WHERE tenant_id = $1 AND number BETWEEN 3 AND 12`, f.Tenant)
	check("moved")
	exec(`UPDATE settlement_statements SET driver_type = 'CONTRACTOR' WHERE tenant_id = $1 AND number % 4 = 0`, f.Tenant)
	check("retyped")
	exec(`DELETE FROM settlement_statements WHERE tenant_id = $1 AND number > 25`, f.Tenant)
	check("deleted")
	exec(`INSERT INTO settlement_statements (id, tenant_id, number, status, statement_date, pay_period_id, pay_period_title, driver_id, driver_type)
		SELECT gen_random_uuid(), $1, 100 + g, CASE WHEN g % 3 = 0 THEN 'Open' ELSE 'Failed' END, $2::date + g % 12, 'p', 'P', $3, 'COMPANY'
		FROM generate_series(1, 40) g`, f.Tenant, readstest.Day0, f.Drivers[0])
	check("bulk inserted")
}
