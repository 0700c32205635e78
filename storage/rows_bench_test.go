package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// bunUser is the users page's row as bun would describe it (the way not
// taken: docs/architecture.md, "One way to describe a row").
type bunUser struct {
	ID          uuid.UUID `bun:"id"`
	UserName    string    `bun:"user_name"`
	Name        string    `bun:"name"`
	Email       string    `bun:"email"`
	Phone       string    `bun:"phone"`
	UserType    string    `bun:"user_type"`
	Role        string    `bun:"role"`
	CompanyCode string    `bun:"company_code"`
	Status      string    `bun:"status"`
	Permissions []string  `bun:"permissions,array"`
	CreatedAt   time.Time `bun:"created_at"`
	ModifiedAt  time.Time `bun:"modified_at"`
}

// BenchmarkUsersPagePgxAndBun reads the same page of users (the tenant's
// 50, with their count) two ways on one connection: "pgx" is storage's
// path (the tenant context, the count and the page in one pipeline,
// pgx.RowToStructByName over db tags); "bun" is the same statements
// through bun over database/sql (a transaction, the tenant context, the
// count, the page scanned into a bun model). Each reports its round trips
// per page, counted on the wire, next to its allocations.
func BenchmarkUsersPagePgxAndBun(b *testing.B) {
	ctx := context.Background()
	rt := &storage.RoundTrips{}
	db, err := storage.Open(ctx, dbtest.URL(b), storage.CountRoundTrips(rt), func(c *pgxpool.Config) { c.MaxConns = 1 })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(db.Close)
	res, err := seed.Run(ctx, db, seed.Options{Tenant: "bench", Scale: 1})
	if err != nil {
		b.Fatal(err)
	}
	tenant := res.TenantID
	const want = 50 // seed's users per scale
	pgxPage := func() int {
		p, err := (&storage.Reads{DB: db}).SearchUsers(ctx, tenant, reads.UserQuery{Window: domain.Window{Limit: 100}})
		if err != nil {
			b.Fatal(err)
		}
		return len(p.Items)
	}
	cols := "u.id, u.user_name, u.name, u.email, u.phone, u.user_type, u.role, u.company_code, u.status, u.permissions, u.created_at, u.modified_at"
	bunPage := func() int {
		var rows []bunUser
		err := db.InTenant(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
			var total int
			if err := tx.NewRaw("SELECT count(*) FROM users u WHERE u.tenant_id = ?", tenant).Scan(ctx, &total); err != nil {
				return err
			}
			return tx.NewRaw("SELECT "+cols+" FROM users u WHERE u.tenant_id = ? ORDER BY u.user_name, u.id LIMIT 101 OFFSET 0", tenant).Scan(ctx, &rows)
		})
		if err != nil {
			b.Fatal(err)
		}
		return len(rows)
	}
	for _, c := range []struct {
		name string
		page func() int
	}{{"pgx", pgxPage}, {"bun", bunPage}} {
		b.Run(c.name, func(b *testing.B) {
			if n := c.page(); n != want { // warm: connection and prepared statements
				b.Fatalf("%d users, want %d", n, want)
			}
			b.ReportAllocs()
			before := rt.Load()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				c.page()
			}
			b.StopTimer()
			b.ReportMetric(float64(rt.Load()-before)/float64(b.N), "roundtrips/op")
		})
	}
}
