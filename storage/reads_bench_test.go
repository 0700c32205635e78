package storage_test

import (
	"context"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// BenchmarkSearchStatements100 is the storage half of a 100-item statement
// page (driver, totals, line items, sub-lines) on a seeded tenant.
func BenchmarkSearchStatements100(b *testing.B) {
	ctx := context.Background()
	db := dbtest.New(b)
	res, err := seed.Run(ctx, db, seed.Options{Tenant: "bench", Scale: 1})
	if err != nil {
		b.Fatal(err)
	}
	r := &storage.Reads{DB: db}
	q := domain.StatementQuery{From: res.StatementFrom, To: res.StatementTo, Window: domain.Window{Limit: 100}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := r.SearchStatements(ctx, res.TenantID, q)
		if err != nil || len(p.Items) != 100 {
			b.Fatalf("%d items, %v", len(p.Items), err)
		}
	}
}
