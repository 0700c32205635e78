package storage_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/readstest"
)

// Each level of a hot read is one round trip, tenant context included, and
// a part the caller skips costs nothing: counted on the wire of a one-connection
// pool whose statements are already prepared.
func TestReadRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	rt := &storage.RoundTrips{}
	db, err := storage.Open(ctx, dbtest.URL(t), storage.CountRoundTrips(rt), func(c *pgxpool.Config) { c.MaxConns = 1 })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	f := readstest.NewTenant(t, db, "acme")
	r := &storage.Reads{DB: db}
	full := stmtQuery(0, 29, domain.Window{Limit: 100})
	bare := full
	bare.Skip = domain.StatementSkip{Total: true, Totals: true, Driver: true, LineItems: true}
	lines := full
	lines.Skip = domain.StatementSkip{Total: true, Driver: true, SubLines: true}

	cases := []struct {
		name  string
		want  int64
		read  func() error
		check func(t *testing.T)
	}{
		{name: "invoice by id", want: 1, read: func() error { _, err := r.InvoiceByID(ctx, f.Tenant, f.Invoice); return err }},
		{name: "invoice by number", want: 1, read: func() error { _, err := r.InvoiceByNumber(ctx, f.Tenant, "INV-1"); return err }},
		{name: "statement by number", want: 2, read: func() error { _, err := r.StatementByNumber(ctx, f.Tenant, 2); return err }},
		{name: "statement search, everything", want: 2, read: func() error { _, err := r.SearchStatements(ctx, f.Tenant, full); return err }},
		{name: "statement search, no count and no relations", want: 1, read: func() error { _, err := r.SearchStatements(ctx, f.Tenant, bare); return err }},
		{name: "statement search, line items only", want: 2, read: func() error { _, err := r.SearchStatements(ctx, f.Tenant, lines); return err }},
	}
	for _, c := range cases {
		if err := c.read(); err != nil { // prepares the statements on the connection
			t.Fatalf("%s: %v", c.name, err)
		}
		before := rt.Load()
		if err := c.read(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := rt.Load() - before; got != c.want {
			t.Errorf("%s: %d round trips, want %d", c.name, got, c.want)
		}
	}
}

// A skipped part is not read: it stays empty while the rest is filled.
func TestSearchStatementsSkipsWhatIsNotAsked(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	f := readstest.NewTenant(t, db, "acme")
	r := &storage.Reads{DB: db}

	q := stmtQuery(0, 9, domain.Window{Limit: 100})
	q.Skip = domain.StatementSkip{Total: true, Totals: true, Driver: true, LineItems: true}
	page, err := r.SearchStatements(ctx, f.Tenant, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 8 || page.Total != 0 {
		t.Fatalf("%d items, total %d; want 8 items and no count", len(page.Items), page.Total)
	}
	s := page.Items[1] // number 2, filled in full by TestSearchStatementsOnlyVisibleInclusiveRange
	if s.Number != 2 || s.PayPeriodTitle != "Week 2" || s.Driver != nil || s.Totals.GrossIncome != nil ||
		s.Totals.NumberOfTrips != nil || len(s.LineItems) != 0 || s.LineItems == nil {
		t.Errorf("skipped parts were read: %+v", s)
	}

	q.Skip = domain.StatementSkip{SubLines: true}
	page, err = r.SearchStatements(ctx, f.Tenant, q)
	if err != nil {
		t.Fatal(err)
	}
	s = page.Items[1]
	if page.Total != 8 || s.Driver == nil || s.Totals.GrossIncome == nil || len(s.LineItems) != 2 ||
		s.LineItems[0].SubLines == nil || len(s.LineItems[0].SubLines) != 0 {
		t.Errorf("total %d, statement %+v: want everything but the sub-lines", page.Total, s)
	}
}
