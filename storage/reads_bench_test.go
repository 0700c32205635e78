package storage_test

import (
	"context"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
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
	q := reads.StatementQuery{From: res.StatementFrom, To: res.StatementTo, Window: domain.Window{Limit: 100}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := r.SearchStatements(ctx, res.TenantID, q)
		if err != nil || len(p.Items) != 100 {
			b.Fatalf("%d items, %v", len(p.Items), err)
		}
	}
}

// BenchmarkLoadReads is the load read endpoint (one snapshot by number) and
// a 100-load page of the loads list, on a seeded tenant.
func BenchmarkLoadReads(b *testing.B) {
	ctx := context.Background()
	db := dbtest.New(b)
	res, err := seed.Run(ctx, db, seed.Options{Tenant: "bench", Scale: 1})
	if err != nil {
		b.Fatal(err)
	}
	r := &storage.Reads{DB: db}
	page := reads.LoadListQuery{Window: domain.Window{Limit: 100}}
	first, err := r.ListLoads(ctx, res.TenantID, page)
	if err != nil || len(first.Items) != 100 {
		b.Fatalf("%d loads, %v", len(first.Items), err)
	}
	number := first.Items[0].LoadNumber
	b.Run("by number", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if l, err := r.LoadByNumber(ctx, res.TenantID, number); err != nil || l.LoadNumber != number {
				b.Fatalf("%+v %v", l, err)
			}
		}
	})
	b.Run("list 100", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if p, err := r.ListLoads(ctx, res.TenantID, page); err != nil || len(p.Items) != 100 {
				b.Fatalf("%d loads, %v", len(p.Items), err)
			}
		}
	})
}
