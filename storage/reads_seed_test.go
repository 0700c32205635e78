package storage_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// TestReadsOverSeededTenant reads everything the seed writes: the counts it
// promises must come back, and every stored shape (trailer notes and
// references JSON, arrays, decimals) must decode.
func TestReadsOverSeededTenant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	res, err := seed.Run(ctx, db, seed.Options{Tenant: "seeded", Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	other, err := seed.Run(ctx, db, seed.Options{Tenant: "other", Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	r := &storage.Reads{DB: db}
	q := reads.StatementQuery{From: res.StatementFrom, To: res.StatementTo, Window: domain.Window{Limit: 100}}
	page, err := r.SearchStatements(ctx, res.TenantID, q)
	if err != nil || page.Total != res.VisibleStatements || len(page.Items) != 100 {
		t.Fatalf("statements: total %d (want %d), %d items, %v", page.Total, res.VisibleStatements, len(page.Items), err)
	}
	for _, dt := range domain.DriverTypes {
		q.DriverType = &dt
		p, err := r.SearchStatements(ctx, res.TenantID, q)
		if err != nil || p.Total != res.VisibleByDriverType[dt] {
			t.Errorf("%s: %d, want %d (%v)", dt, p.Total, res.VisibleByDriverType[dt], err)
		}
	}
	q.DriverType, q.DriverID = nil, &res.DriverID
	if p, err := r.SearchStatements(ctx, res.TenantID, q); err != nil || p.Total != res.DriverVisibleStatements {
		t.Errorf("driver: %d, want %d (%v)", p.Total, res.DriverVisibleStatements, err)
	}
	for status, n := range res.Statements {
		_, err := r.StatementByNumber(ctx, res.TenantID, n)
		visible := status == reads.StatementProcessed || status == reads.StatementFailed
		if visible != (err == nil) {
			t.Errorf("statement %d (%s): %v", n, status, err)
		}
	}
	inv, err := r.InvoiceByNumber(ctx, res.TenantID, res.Invoice.Number)
	if err != nil || inv.Vendor == nil || inv.Customer == nil || len(inv.LineItems) == 0 || len(inv.Loads) == 0 || len(inv.Payments) == 0 {
		t.Fatalf("invoice %+v %v", inv, err)
	}
	if _, err := r.InvoiceByID(ctx, other.TenantID, inv.ID); domain.CodeOf(err) != domain.CodeNotFound {
		t.Errorf("another tenant reads the invoice: %v", err)
	}
	trailers, err := r.ListTrailers(ctx, res.TenantID, domain.Window{})
	if err != nil || trailers.Total != res.Counts["trailers"] || len(trailers.Items) != trailers.Total {
		t.Fatalf("trailers: %d of %d, %v", len(trailers.Items), res.Counts["trailers"], err)
	}
	locs, err := r.SearchLocations(ctx, res.TenantID, reads.LocationQuery{IDs: res.LocationIDs, Window: domain.Window{Limit: 100}})
	if err != nil || locs.Total != len(res.LocationIDs) {
		t.Errorf("locations by id: %d of %d, %v", locs.Total, len(res.LocationIDs), err)
	}
	users, err := r.SearchUsers(ctx, res.TenantID, reads.UserQuery{Window: domain.Window{Limit: 100}})
	if err != nil || users.Total != res.Counts["users"] {
		t.Errorf("users: %d of %d, %v", users.Total, res.Counts["users"], err)
	}
	load, err := r.LoadByNumber(ctx, res.TenantID, res.LoadWithTrips)
	if err != nil || len(load.Trips) == 0 || len(load.Stops) == 0 {
		t.Fatalf("load %+v %v", load, err)
	}
	if tr, err := r.TrailersByIDs(ctx, res.TenantID, []uuid.UUID{res.TrailerID}); err != nil || len(tr) != 1 {
		t.Errorf("trailer by id: %v %v", tr, err)
	}
}
