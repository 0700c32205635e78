package storage_test

import (
	"context"
	"encoding/base64"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/readstest"
)

func stmtQuery(from, to int, w domain.Window) reads.StatementQuery {
	return reads.StatementQuery{From: domain.DateOf(readstest.Day0.AddDate(0, 0, from)), To: domain.DateOf(readstest.Day0.AddDate(0, 0, to)), Window: w}
}

func TestSearchStatementsOnlyVisibleInclusiveRange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	f := readstest.NewTenant(t, db, "acme")
	readstest.NewTenant(t, db, "other") // same numbers in another tenant must not show
	r := &storage.Reads{DB: db}

	// Days 0..9 hold statements 1..10; 6 (Generating) and 7 (Draft) are hidden.
	page, err := r.SearchStatements(ctx, f.Tenant, stmtQuery(0, 9, domain.Window{Limit: 100}))
	if err != nil {
		t.Fatal(err)
	}
	var got []int32
	for _, s := range page.Items {
		got = append(got, s.Number)
	}
	want := []int32{1, 2, 3, 4, 5, 8, 9, 10}
	if page.Total != len(want) || len(got) != len(want) {
		t.Fatalf("total %d, numbers %v; want %v", page.Total, got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("numbers %v, want %v", got, want)
		}
	}
	if page.Items[4].Status != reads.StatementFailed {
		t.Errorf("statement 5 status %s, want Failed (still returned)", page.Items[4].Status)
	}
	s := page.Items[1] // number 2: owner operator
	if s.Driver == nil || s.Driver.ID != f.Drivers[1] || s.Driver.Type != domain.OwnerOperator ||
		s.Driver.CompanyName == nil || *s.Driver.CompanyName != "Owner LLC" || s.Driver.FleetName == nil || *s.Driver.FleetName != "Fleet A" {
		t.Errorf("driver not filled: %+v", s.Driver)
	}
	if len(s.LineItems) != 2 || len(s.LineItems[0].SubLines) != 2 || s.LineItems[1].TransactionType == nil ||
		*s.LineItems[1].TransactionType != reads.EscrowDeposit || s.LineItems[0].TransactionType != nil {
		t.Fatalf("line items not filled: %+v", s.LineItems)
	}
	if s.LineItems[0].Amount.Amount.String() != "-12.34" {
		t.Errorf("line amount %s", s.LineItems[0].Amount.Amount)
	}
	if s.Totals.GrossIncome == nil || s.Totals.GrossIncome.Amount.String() != "1002.1" || s.Totals.LineHaul != nil ||
		s.Totals.NumberOfTrips == nil || *s.Totals.NumberOfTrips != 2 {
		t.Errorf("totals: %+v", s.Totals)
	}
	if s.StatementDate.String() != "2025-03-02" || s.PayPeriodTitle != "Week 2" {
		t.Errorf("date %s title %s", s.StatementDate, s.PayPeriodTitle)
	}
}

func TestSearchStatementsFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	f := readstest.NewTenant(t, db, "acme")
	r := &storage.Reads{DB: db}
	oo := domain.OwnerOperator
	q := stmtQuery(0, 29, domain.Window{Limit: 100})
	q.DriverType = &oo
	page, err := r.SearchStatements(ctx, f.Tenant, q)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range page.Items {
		if s.Driver.Type != domain.OwnerOperator {
			t.Errorf("statement %d driver type %s", s.Number, s.Driver.Type)
		}
	}
	if page.Total != 10 { // 2,5,8,...,29
		t.Errorf("owner-operator total %d, want 10", page.Total)
	}
	q = stmtQuery(0, 29, domain.Window{Limit: 100})
	q.DriverID = &f.Drivers[0]
	page, err = r.SearchStatements(ctx, f.Tenant, q)
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 9 { // 1,4,7(draft),10,...,28 → 10 minus the draft
		t.Errorf("driver total %d, want 9", page.Total)
	}
	for _, s := range page.Items {
		if s.Driver.ID != f.Drivers[0] {
			t.Errorf("statement %d of driver %s", s.Number, s.Driver.ID)
		}
	}
}

func TestSearchStatementsOffsetAndCursorPagesAgree(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	f := readstest.NewTenant(t, db, "acme")
	r := &storage.Reads{DB: db}
	var byOffset, byCursor []int32
	for p := 0; ; p++ {
		page, err := r.SearchStatements(ctx, f.Tenant, stmtQuery(0, 29, domain.Window{Limit: 7, Offset: p * 7}))
		if err != nil {
			t.Fatal(err)
		}
		if page.Total != 28 {
			t.Fatalf("total %d, want 28", page.Total)
		}
		for _, s := range page.Items {
			byOffset = append(byOffset, s.Number)
		}
		if !page.HasMore {
			break
		}
	}
	after := ""
	for {
		page, err := r.SearchStatements(ctx, f.Tenant, stmtQuery(0, 29, domain.Window{Limit: 7, After: after}))
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Cursors) != len(page.Items) {
			t.Fatalf("%d cursors for %d items", len(page.Cursors), len(page.Items))
		}
		for _, s := range page.Items {
			byCursor = append(byCursor, s.Number)
		}
		if !page.HasMore {
			break
		}
		after = page.Cursors[len(page.Cursors)-1]
	}
	if len(byOffset) != 28 || len(byCursor) != 28 {
		t.Fatalf("offset %v cursor %v", byOffset, byCursor)
	}
	for i := range byOffset {
		if byOffset[i] != byCursor[i] {
			t.Fatalf("offset %v != cursor %v", byOffset, byCursor)
		}
	}
	forged := base64.RawURLEncoding.EncodeToString([]byte(`["2025-02-30","1"]`)) // well-formed, not a date
	for _, c := range []string{"not-a-cursor", forged} {
		_, err := r.SearchStatements(ctx, f.Tenant, stmtQuery(0, 29, domain.Window{Limit: 7, After: c}))
		if domain.CodeOf(err) != domain.CodeInvalid {
			t.Errorf("cursor %q: %v, want BAD_USER_INPUT", c, err)
		}
	}
}

func TestStatementByNumber(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	f := readstest.NewTenant(t, db, "acme")
	r := &storage.Reads{DB: db}
	s, err := r.StatementByNumber(ctx, f.Tenant, 5)
	if err != nil || s.Status != reads.StatementFailed || len(s.LineItems) != 2 || s.Driver == nil {
		t.Fatalf("failed statement 5: %+v %v", s, err)
	}
	for _, n := range []int32{6, 7, 999} { // generating, draft, unknown
		if _, err := r.StatementByNumber(ctx, f.Tenant, n); domain.CodeOf(err) != domain.CodeNotFound {
			t.Errorf("statement %d: %v, want NOT_FOUND", n, err)
		}
	}
	if _, err := r.StatementByNumber(ctx, uuid.New(), 1); domain.CodeOf(err) != domain.CodeNotFound {
		t.Errorf("other tenant: %v, want NOT_FOUND", err)
	}
}

func TestInvoiceFullyPopulated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	f := readstest.NewTenant(t, db, "acme")
	other := readstest.NewTenant(t, db, "other")
	r := &storage.Reads{DB: db}
	byID, err := r.InvoiceByID(ctx, f.Tenant, f.Invoice)
	if err != nil {
		t.Fatal(err)
	}
	byNum, err := r.InvoiceByNumber(ctx, f.Tenant, "INV-1")
	if err != nil || byNum.ID != byID.ID {
		t.Fatalf("by number: %v %v", byNum, err)
	}
	inv := byID
	if inv.Vendor == nil || inv.Vendor.Name != "Haul Co" || inv.Vendor.RemitAddress.City != "Boise" {
		t.Errorf("vendor %+v", inv.Vendor)
	}
	if inv.Customer == nil || inv.Customer.Name != "Acme" || len(inv.Customer.EmailAddresses) != 1 {
		t.Errorf("customer %+v", inv.Customer)
	}
	if len(inv.LineItems) != 1 || inv.LineItems[0].Rate.Rate.String() != "3.0005" || inv.LineItems[0].Amount.Amount.String() != "1500.25" {
		t.Errorf("lines %+v", inv.LineItems)
	}
	if len(inv.Loads) != 1 || inv.Loads[0].LoadNumber != "L-100" || inv.Loads[0].SubsidiaryName != "North" {
		t.Errorf("loads %+v", inv.Loads)
	}
	if len(inv.Payments) != 1 || inv.Payments[0].CheckNumber != "CHK-9" {
		t.Errorf("payments %+v", inv.Payments)
	}
	if inv.RemainingBalance.Amount.String() != "1000.25" || *inv.RemainingBalance.Currency != 840 {
		t.Errorf("remaining %+v", inv.RemainingBalance)
	}
	if _, err := r.InvoiceByID(ctx, f.Tenant, other.Invoice); domain.CodeOf(err) != domain.CodeNotFound {
		t.Errorf("other tenant's invoice: %v, want NOT_FOUND", err)
	}
}

func TestTrailersLocationsUsersLoad(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	f := readstest.NewTenant(t, db, "acme")
	readstest.NewTenant(t, db, "other")
	r := &storage.Reads{DB: db}

	tr, err := r.ListTrailers(ctx, f.Tenant, domain.Window{})
	if err != nil || tr.Total != 1 || len(tr.Items) != 1 {
		t.Fatalf("trailers %+v %v", tr, err)
	}
	tl := tr.Items[0]
	if tl.Fleet == nil || tl.Fleet.InvoiceNumberPrefix != "FA" || len(tl.Notes) != 1 || tl.Notes[0].User != "ann" ||
		len(tl.References) != 1 || tl.References[0].Value != "42" || tl.Capacity == nil || *tl.Capacity.Pallets != 26 {
		t.Errorf("trailer %+v", tl)
	}

	locs, err := r.SearchLocations(ctx, f.Tenant, reads.LocationQuery{Statuses: []reads.LocationStatus{reads.LocationActive}, Window: domain.Window{Limit: 2}})
	if err != nil || locs.Total != 3 || len(locs.Items) != 2 || !locs.HasMore {
		t.Fatalf("active locations %+v %v", locs, err)
	}
	if len(locs.Items[0].Notes) != 1 || locs.Items[0].Notes[0].User != "bob" || locs.Items[0].Email[0] != "x@y.test" {
		t.Errorf("location %+v", locs.Items[0])
	}
	after := readstest.Day0.AddDate(0, 0, 1)
	before := readstest.Day0.AddDate(0, 0, 3)
	locs, err = r.SearchLocations(ctx, f.Tenant, reads.LocationQuery{CreatedAfter: &after, CreatedBefore: &before, Window: domain.Window{Limit: 10}})
	if err != nil || locs.Total != 3 {
		t.Errorf("created window: total %d %v, want 3 (inclusive)", locs.Total, err)
	}

	users, err := r.SearchUsers(ctx, f.Tenant, reads.UserQuery{Keyword: "user3", Window: domain.Window{Limit: 10}})
	if err != nil || users.Total != 1 || users.Items[0].UserName != "user3" || users.Items[0].Permissions[0] != "loads.view" {
		t.Fatalf("users %+v %v", users, err)
	}
	users, err = r.SearchUsers(ctx, f.Tenant, reads.UserQuery{Keyword: "%", Window: domain.Window{Limit: 10}})
	if err != nil || users.Total != 0 {
		t.Errorf("%% must be literal: total %d %v", users.Total, err)
	}
	users, err = r.SearchUsers(ctx, f.Tenant, reads.UserQuery{Window: domain.Window{Limit: 10}})
	if err != nil || users.Total != 5 {
		t.Errorf("all users of the tenant: %d %v", users.Total, err)
	}

	load, err := r.LoadByNumber(ctx, f.Tenant, "L-100")
	if err != nil {
		t.Fatal(err)
	}
	if len(load.Stops) != 2 || load.Stops[0].Type != domain.Pickup || len(load.Trips) != 1 || len(load.Trips[0].DriverIDs) != 2 ||
		load.SubsidiaryName != "North" || load.Rate.Amount.String() != "1500.25" {
		t.Errorf("load %+v", load)
	}
	if _, err := r.LoadByNumber(ctx, f.Tenant, "L-404"); domain.CodeOf(err) != domain.CodeNotFound {
		t.Errorf("unknown load: %v", err)
	}
	drivers, err := r.DriversByIDs(ctx, f.Tenant, load.Trips[0].DriverIDs)
	if err != nil || len(drivers) != 2 {
		t.Errorf("drivers %v %v", drivers, err)
	}
}

func TestBatchLoadersStayInTenant(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	a := readstest.NewTenant(t, db, "acme")
	b := readstest.NewTenant(t, db, "other")
	r := &storage.Reads{DB: db}
	mixed := []uuid.UUID{a.Drivers[0], b.Drivers[0]}
	if d, err := r.DriversByIDs(ctx, a.Tenant, mixed); err != nil || len(d) != 1 || d[a.Drivers[0]].Name == "" {
		t.Errorf("drivers: %v %v, want only A's", d, err)
	}
	if m, err := r.TrailersByIDs(ctx, a.Tenant, []uuid.UUID{b.Trailer}); err != nil || len(m) != 0 {
		t.Errorf("trailers: %v %v", m, err)
	}
	if m, err := r.CarriersByIDs(ctx, a.Tenant, []uuid.UUID{a.Carrier, b.Carrier}); err != nil || len(m) != 1 {
		t.Errorf("carriers: %v %v", m, err)
	}
	if m, err := r.LocationsByIDs(ctx, a.Tenant, []uuid.UUID{b.Location}); err != nil || len(m) != 0 {
		t.Errorf("locations: %v %v", m, err)
	}
	if m, err := r.LoadsByIDs(ctx, a.Tenant, []uuid.UUID{a.Load, b.Load}); err != nil || len(m) != 1 || len(m[a.Load].Trips) != 1 {
		t.Errorf("loads: %v %v", m, err)
	}
}
