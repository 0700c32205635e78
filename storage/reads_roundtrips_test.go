package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
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
	db, rt := countedDB(t)
	f := readstest.NewTenant(t, db, "acme")
	r := &storage.Reads{DB: db}
	full := stmtQuery(0, 29, domain.Window{Limit: 100})
	bare := full
	bare.Skip = reads.StatementSkip{Total: true, Totals: true, Driver: true, LineItems: true}
	lines := full
	lines.Skip = reads.StatementSkip{Total: true, Driver: true, SubLines: true}

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
	q.Skip = reads.StatementSkip{Total: true, Totals: true, Driver: true, LineItems: true}
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

	q.Skip = reads.StatementSkip{SubLines: true}
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

// A load write's statements travel with the reads it must see: a create is
// three round trips (begin, tenant and reference check; inserts and the
// snapshot; events and commit), a status change three (lock and snapshot;
// update and snapshot; events and commit), a refused change two (the second
// rolls back), and the connection is idle again after each.
func TestLoadWriteRoundTrips(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, rt := countedDB(t)
	f := newWriteFixture(t, db)
	r := &storage.Reads{DB: db}
	// The first of each kind prepares its statements on the connection.
	trip := f.create(t, "RT-0").Trips[0].ID.String()
	driver := f.driver.String()
	if _, err := f.svc.ChangeLoadStatus(f.ctx, "RT-0", "Covered"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.UpdateTrip(f.ctx, trip, loads.TripPatch{DriverIDs: []string{driver}}); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name  string
		want  int64
		write func() error
		code  domain.Code
	}{
		{name: "create", want: 3, write: func() error { f.create(t, "RT-1"); return nil }},
		{name: "status change", want: 3, write: func() error { _, err := f.svc.ChangeLoadStatus(f.ctx, "RT-1", "Covered"); return err }},
		{name: "refused transition", want: 2, code: domain.CodeInvalid,
			write: func() error { _, err := f.svc.ChangeLoadStatus(f.ctx, "RT-1", "Delivered"); return err }},
		{name: "unknown load", want: 2, code: domain.CodeNotFound,
			write: func() error { _, err := f.svc.ChangeLoadStatus(f.ctx, "RT-404", "Covered"); return err }},
		{name: "trip assignment (the reference check is one more)", want: 4, write: func() error {
			_, err := f.svc.UpdateTrip(f.ctx, trip, loads.TripPatch{DriverIDs: []string{driver}})
			return err
		}},
		{name: "load read", want: 1, write: func() error { _, err := r.LoadByNumber(ctx, f.tenant, "RT-1"); return err }},
		// Last: after a failed batch pgx drops that batch's prepared
		// statements, which the next call pays for.
		{name: "load number taken", want: 3, code: domain.CodeConflict, write: func() error {
			_, err := f.svc.CreateLoad(f.ctx, loads.Input{LoadNumber: "RT-1", SubsidiaryID: f.subsidiary.String(),
				Stops: []loads.StopInput{{Type: "Pickup", Name: "Mill"}}})
			return err
		}},
	}
	for _, c := range cases {
		before := rt.Load()
		if err := c.write(); (c.code == "" && err != nil) || (c.code != "" && domain.CodeOf(err) != c.code) {
			t.Fatalf("%s: %v, want code %q", c.name, err, c.code)
		}
		if got := rt.Load() - before; got != c.want {
			t.Errorf("%s: %d round trips, want %d", c.name, got, c.want)
		}
		if n := db.Pool.Stat().AcquiredConns(); n != 0 {
			t.Errorf("%s: %d connections still held", c.name, n)
		}
	}
	l, err := r.LoadByNumber(ctx, f.tenant, "RT-1")
	if err != nil || l.Status != domain.LoadCovered {
		t.Fatalf("RT-1 after the refused changes: %+v %v", l, err)
	}
}

// Recording a delivered webhook attempt, what a backlog is made of, is one
// round trip; a stale worker's attempt (its lease was taken over: the
// delivery is at a later attempt) is logged and changes nothing else.
func TestRecordDeliveredIsOneRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, rt := countedDB(t)
	f := newWriteFixture(t, db)
	webhook, stale, fresh := uuid.New(), uuid.New(), uuid.New()
	var fixture pgx.Batch
	fixture.Queue(`INSERT INTO webhooks (id, tenant_id, subsidiary_id, name, url, event_types, state, secret_ciphertext)
		VALUES ($1, $2, $3, 'w', 'https://example.com/h', '{load.changed}', 'Active', '\x00')`, webhook, f.tenant, f.subsidiary)
	fixture.Queue(`INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload)
		VALUES ('e-0', $1, $2, 'load.changed', $3, '{}')`, f.tenant, f.subsidiary, webhook)
	for _, d := range []struct {
		id      uuid.UUID
		attempt int
	}{{stale, 2}, {fresh, 1}} {
		fixture.Queue(`INSERT INTO webhook_deliveries (id, tenant_id, webhook_id, event_id, event_seq, attempt, status,
			next_attempt_at, redelivery) SELECT $1, $2, $3, 'e-0', seq, $4, 'Pending', now(), $4 = 1 FROM events WHERE id = 'e-0'`,
			d.id, f.tenant, webhook, d.attempt)
	}
	if err := db.Pool.SendBatch(ctx, &fixture).Close(); err != nil {
		t.Fatal(err)
	}
	store := storage.NewWebhookStore(db, nil) // recording needs no secrets
	delivered := func(id uuid.UUID, attempt int, count bool) {
		t.Helper()
		status := 200
		before := rt.Load()
		now := time.Now()
		_, err := store.RecordAttempt(ctx, webhooks.ClaimedDelivery{ID: id, TenantID: f.tenant, WebhookID: webhook,
			Attempt: attempt, ChainAttempt: 1}, webhooks.AttemptLog{AttemptID: uuid.New(), StatusCode: &status, At: now},
			webhooks.DecideAttempt(webhooks.AttemptResult{Delivered: true, At: now}, 1, nil))
		if err != nil {
			t.Fatal(err)
		}
		if n := rt.Load() - before; count && n != 1 {
			t.Errorf("attempt %d of %s: %d round trips, want 1", attempt, id, n)
		}
	}
	delivered(stale, 1, false) // prepares the statement; the delivery is at attempt 2 meanwhile
	delivered(stale, 1, true)
	delivered(fresh, 1, true)
	var staleStatus, freshStatus string
	var logged int
	err := db.Pool.QueryRow(ctx, `SELECT (SELECT status FROM webhook_deliveries WHERE id = $1),
		(SELECT status FROM webhook_deliveries WHERE id = $2), (SELECT count(*) FROM webhook_attempts)`, stale, fresh).
		Scan(&staleStatus, &freshStatus, &logged)
	if err != nil || staleStatus != "Pending" || freshStatus != "Delivered" || logged != 3 {
		t.Fatalf("stale %s, fresh %s, %d attempts logged (%v): want Pending, Delivered, 3", staleStatus, freshStatus, logged, err)
	}
}

// countedDB is a migrated test database behind a one-connection pool whose
// round trips rt counts.
func countedDB(t *testing.T) (*storage.DB, *storage.RoundTrips) {
	t.Helper()
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
	return db, rt
}
