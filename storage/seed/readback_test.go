package seed_test

import (
	"context"
	"errors"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// TestSeedReadsBackThroughTheReadStore reads the seeded tenant through the
// real read store: what seeding writes (JSON notes, nullable totals, in-flight
// statements) must be what the API layer understands, and the well-known
// keys and counts of Result must be what it answers.
func TestSeedReadsBackThroughTheReadStore(t *testing.T) {
	db := dbtest.New(t)
	res := run(t, db, "acme", 1)
	run(t, db, "globex", 1) // a neighbour whose rows must not leak into the counts
	ctx := context.Background()
	reads := &storage.Reads{DB: db}
	tid := res.TenantID
	all := domain.Window{Limit: 100}

	window := domain.StatementQuery{From: res.StatementFrom, To: res.StatementTo, Window: all}
	page, err := reads.SearchStatements(ctx, tid, window)
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != res.VisibleStatements {
		t.Errorf("statement search total %d, Result says %d visible", page.Total, res.VisibleStatements)
	}
	for _, dt := range domain.DriverTypes {
		q := window
		q.DriverType = &dt
		p, err := reads.SearchStatements(ctx, tid, q)
		if err != nil {
			t.Fatal(err)
		}
		if p.Total != res.VisibleByDriverType[dt] {
			t.Errorf("%s statements: search says %d, Result %d", dt, p.Total, res.VisibleByDriverType[dt])
		}
	}
	q := window
	q.DriverID = &res.DriverID
	if p, err := reads.SearchStatements(ctx, tid, q); err != nil || p.Total != res.DriverVisibleStatements {
		t.Errorf("driver's statements: %v, %v; Result says %d", p.Total, err, res.DriverVisibleStatements)
	}
	for st, num := range res.Statements {
		s, err := reads.StatementByNumber(ctx, tid, num)
		visible := st == domain.StatementProcessed || st == domain.StatementFailed
		var de *domain.Error
		switch {
		case visible && err != nil:
			t.Errorf("%s statement %d: %v", st, num, err)
		case visible && (s.Status != st || len(s.LineItems) == 0 || s.Driver == nil):
			t.Errorf("%s statement %d read back as %s with %d lines", st, num, s.Status, len(s.LineItems))
		case !visible && !(errors.As(err, &de) && de.Code == domain.CodeNotFound):
			t.Errorf("%s statement %d: got %v, want not found", st, num, err)
		}
	}

	for _, ref := range res.Invoices {
		inv, err := reads.InvoiceByNumber(ctx, tid, ref.Number)
		if err != nil {
			t.Fatalf("invoice %s: %v", ref.Number, err)
		}
		if inv.ID != ref.ID || inv.Type != ref.Type || inv.Status != ref.Status || len(inv.LineItems) == 0 || inv.Customer == nil || inv.Vendor == nil {
			t.Errorf("invoice %s read back as %+v", ref.Number, inv)
		}
	}
	full, err := reads.InvoiceByID(ctx, tid, res.Invoice.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(full.Loads) != 1 || len(full.Payments) == 0 || full.PaidDate == nil {
		t.Errorf("the full invoice has %d loads, %d payments, paid %v", len(full.Loads), len(full.Payments), full.PaidDate)
	}

	trailers, err := reads.ListTrailers(ctx, tid, all)
	if err != nil {
		t.Fatal(err)
	}
	notes := 0
	for _, tr := range trailers.Items {
		notes += len(tr.Notes)
	}
	if trailers.Total != res.Counts["trailers"] || notes == 0 {
		t.Errorf("trailers: %d (Result %d) with %d notes", trailers.Total, res.Counts["trailers"], notes)
	}
	locs, err := reads.SearchLocations(ctx, tid, domain.LocationQuery{IDs: res.LocationIDs, Window: all})
	if err != nil || locs.Total != len(res.LocationIDs) {
		t.Errorf("well-known locations: %d, %v", locs.Total, err)
	}
	users, err := reads.SearchUsers(ctx, tid, domain.UserQuery{Window: all})
	if err != nil || users.Total != res.Counts["users"] {
		t.Errorf("users: %d, %v; Result %d", users.Total, err, res.Counts["users"])
	}

	withTrips, err := reads.LoadByNumber(ctx, tid, res.LoadWithTrips)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, trip := range withTrips.Trips {
		found = found || trip.ID == res.TripID
	}
	if !found || len(withTrips.Stops) < 2 {
		t.Errorf("load %s: trips %+v, %d stops; want trip %s", res.LoadWithTrips, withTrips.Trips, len(withTrips.Stops), res.TripID)
	}
	without, err := reads.LoadByNumber(ctx, tid, res.LoadWithoutTrips)
	if err != nil || len(without.Trips) != 0 {
		t.Errorf("load %s: %v, %v", res.LoadWithoutTrips, without, err)
	}
}
