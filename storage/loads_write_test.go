package storage_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/testkit"
)

// writeFixture is one tenant with a subsidiary and a driver, and a caller
// holding every load and trip write scope.
type writeFixture struct {
	db         *storage.DB
	tenant     uuid.UUID
	subsidiary uuid.UUID
	driver     uuid.UUID
	ctx        context.Context
	svc        *loads.Writes
}

func newWriteFixture(t *testing.T, db *storage.DB) *writeFixture {
	t.Helper()
	f := &writeFixture{db: db, tenant: uuid.New(), subsidiary: uuid.New(), driver: uuid.New()}
	ctx := context.Background()
	_, err := db.Pool.Exec(ctx, `INSERT INTO tenants (id, slug, name) VALUES ($1, $2, 'T');
		`, f.tenant, "t-"+f.tenant.String()[:8])
	if err == nil {
		_, err = db.Pool.Exec(ctx, `INSERT INTO subsidiaries (id, tenant_id, name) VALUES ($1, $2, 'North')`, f.subsidiary, f.tenant)
	}
	if err == nil {
		_, err = db.Pool.Exec(ctx, `INSERT INTO drivers (id, tenant_id, name, type) VALUES ($1, $2, 'Dana', 'COMPANY')`, f.driver, f.tenant)
	}
	if err != nil {
		t.Fatal(err)
	}
	f.ctx = domain.WithPrincipal(ctx, &domain.Principal{TenantID: f.tenant, ClientID: "c",
		Scopes: []domain.Scope{domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripUpdate}})
	f.svc = &loads.Writes{Store: &storage.LoadWrites{DB: db}}
	return f
}

func (f *writeFixture) create(t *testing.T, number string) *domain.Load {
	t.Helper()
	rate := loads.MoneyInput{Amount: decimal.RequireFromString("1500.50")}
	l, err := f.svc.CreateLoad(f.ctx, loads.Input{LoadNumber: number, SubsidiaryID: f.subsidiary.String(), Rate: &rate,
		Stops: []loads.StopInput{{Type: "Pickup", Name: "Mill"}, {Type: "Delivery", Name: "Dock"}},
		Trips: []loads.TripInput{{TripNumber: number + "-T1"}}})
	if err != nil {
		t.Fatalf("create %s: %v", number, err)
	}
	return l
}

func outboxEvents(t *testing.T, db *storage.DB) []storage.OutboxEvent {
	t.Helper()
	// What was written, in write order (Outbox.After would wait for the
	// horizon, which other databases' transactions on the cluster move).
	rows, err := db.Pool.Query(context.Background(), `SELECT seq, xact::text::bigint AS xact, id, tenant_id, subsidiary_id,
		type, subject_id, payload, created_at, traceparent FROM events ORDER BY seq LIMIT 100`)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := pgx.CollectRows(rows, pgx.RowToStructByName[storage.OutboxEvent])
	if err != nil {
		t.Fatal(err)
	}
	return evs
}

func TestLoadWritesEmitEventsInTheirTransaction(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	f := newWriteFixture(t, db)
	l := f.create(t, "L-100")
	if l.SubsidiaryName != "North" || len(l.Stops) != 2 || len(l.Trips) != 1 || l.Rate.Amount.String() != "1500.5" {
		t.Fatalf("snapshot after create: %+v", l)
	}
	evs := outboxEvents(t, db)
	if len(evs) != 1 || evs[0].Type != domain.EventLoadChanged || !strings.HasSuffix(evs[0].ID, "-0") {
		t.Fatalf("create events: %+v", evs)
	}
	var env struct {
		ID, Type, Timestamp, Version string
		Data                         map[string]json.RawMessage
	}
	if err := json.Unmarshal(evs[0].Payload, &env); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse(time.RFC3339, env.Timestamp); err != nil || !strings.HasSuffix(env.Timestamp, "+00:00") || env.Version != "v1" {
		t.Fatalf("envelope: %s", evs[0].Payload)
	}
	if _, hasDiff := env.Data["diff"]; hasDiff {
		t.Fatal("creation carries a diff")
	}
	want, _ := json.Marshal(l)
	var got, wantV any
	_ = json.Unmarshal(env.Data["load"], &got)
	_ = json.Unmarshal(want, &wantV)
	if gj, _ := json.Marshal(got); string(gj) != string(testkit.MustJSON(t, wantV)) {
		t.Fatalf("data.load %s\n != snapshot %s", env.Data["load"], want)
	}

	// A status change: load.changed and load.status.changed, one uuid.
	if _, err := f.svc.ChangeLoadStatus(f.ctx, "L-100", "Covered"); err != nil {
		t.Fatal(err)
	}
	evs = outboxEvents(t, db)
	if len(evs) != 3 || evs[1].Type != domain.EventLoadChanged || evs[2].Type != domain.EventLoadStatusChanged ||
		strings.TrimSuffix(evs[1].ID, "-0") != strings.TrimSuffix(evs[2].ID, "-1") || evs[1].ID == evs[2].ID {
		t.Fatalf("status events: %v %v", evs[1].ID, evs[2].ID)
	}
	if strings.Contains(string(evs[2].Payload), `"diff"`) {
		t.Fatal("load.status.changed carries a diff")
	}
	if !strings.Contains(compact(t, evs[1].Payload), `"previousAttributes":{"Status":"Open"}`) {
		t.Fatalf("load.changed diff: %s", evs[1].Payload)
	}

	// A refused transition writes nothing.
	_, err := f.svc.ChangeLoadStatus(f.ctx, "L-100", "Delivered")
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeInvalid || !strings.Contains(de.Message, "Open, Dispatched, Cancelled") {
		t.Fatalf("Covered → Delivered: %v", err)
	}
	if n := len(outboxEvents(t, db)); n != 3 {
		t.Fatalf("a refused write emitted events: %d", n)
	}

	// A trip assignment: trip.changed with a FieldChanged diff.
	tr, err := f.svc.UpdateTrip(f.ctx, l.Trips[0].ID.String(), loads.TripPatch{DriverIDs: []string{f.driver.String()}})
	if err != nil || len(tr.DriverIDs) != 1 || tr.DriverIDs[0] != f.driver {
		t.Fatalf("update trip: %+v %v", tr, err)
	}
	evs = outboxEvents(t, db)
	if len(evs) != 4 || evs[3].Type != domain.EventTripChanged ||
		!strings.Contains(compact(t, evs[3].Payload), `"changes":[{"kind":"FieldChanged","target":{"id":"DriverIds","type":"Field"}}]`) {
		t.Fatalf("trip event: %s", evs[len(evs)-1].Payload)
	}
}

func TestLoadWritesRefuseOtherTenantsRecords(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	a, b := newWriteFixture(t, db), newWriteFixture(t, db)
	_, err := a.svc.CreateLoad(a.ctx, loads.Input{LoadNumber: "X-1", SubsidiaryID: b.subsidiary.String(),
		Stops: []loads.StopInput{{Type: "Pickup"}}})
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeInvalid || len(de.Fields["SubsidiaryId"]) == 0 {
		t.Fatalf("other tenant's subsidiary: %v", err)
	}
	l := a.create(t, "A-1")
	if _, err := a.svc.UpdateTrip(a.ctx, l.Trips[0].ID.String(), loads.TripPatch{DriverIDs: []string{b.driver.String()}}); domain.CodeOf(err) != domain.CodeInvalid {
		t.Fatalf("other tenant's driver: %v", err)
	}
	if _, err := b.svc.ChangeLoadStatus(b.ctx, "A-1", "Covered"); domain.CodeOf(err) != domain.CodeNotFound {
		t.Fatalf("tenant B changed tenant A's load: %v", err)
	}
	if _, err := b.svc.UpdateTrip(b.ctx, l.Trips[0].ID.String(), loads.TripPatch{}); domain.CodeOf(err) != domain.CodeNotFound {
		t.Fatalf("tenant B updated tenant A's trip: %v", err)
	}
	if _, err := a.svc.CreateLoad(a.ctx, loads.Input{LoadNumber: "A-1", SubsidiaryID: a.subsidiary.String(),
		Stops: []loads.StopInput{{Type: "Pickup"}}}); domain.CodeOf(err) != domain.CodeConflict {
		t.Fatalf("duplicate load number: %v", err)
	}
}

// TestOutboxLateCommitIsNotSkipped is the outbox gap: writer A has written
// an event and not committed; writer B commits its events meanwhile (it does
// not wait for A). A reader must not be given B's events before A ends, or,
// having advanced past them, it would skip A's.
func TestOutboxLateCommitIsNotSkipped(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	f := newWriteFixture(t, db)
	f.create(t, "G-1")
	f.create(t, "G-2")
	ctx := context.Background()
	outbox := &storage.Outbox{DB: db}
	// The position of the last event written so far (G-2's creation).
	var head eventlog.Position
	if err := db.Pool.QueryRow(ctx, "SELECT xact::text::bigint, seq FROM events ORDER BY xact DESC, seq DESC LIMIT 1").Scan(&head.Xact, &head.Seq); err != nil {
		t.Fatal(err)
	}

	aInserted, releaseA, aDone := make(chan struct{}), make(chan struct{}), make(chan error, 1)
	go func() {
		aDone <- db.InTenant(f.ctx, f.tenant, func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, "UPDATE loads SET commodity = 'A' WHERE tenant_id = ? AND load_number = 'G-1'", f.tenant); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload)
				VALUES ('gap-a', ?, ?, 'load.changed', ?, '{}')`, f.tenant, f.subsidiary, uuid.New()); err != nil {
				return err
			}
			close(aInserted)
			<-releaseA
			return nil
		})
	}()
	<-aInserted
	// B commits while A is open: writers do not wait for each other.
	bDone := make(chan error, 1)
	go func() {
		_, err := f.svc.ChangeLoadStatus(f.ctx, "G-2", "Covered")
		bDone <- err
	}()
	select {
	case err := <-bDone:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		close(releaseA)
		t.Fatal("writer B waited for writer A")
	}
	// B's events are committed but held back behind A.
	evs, held, err := outbox.After(ctx, head, 10)
	if err != nil || len(evs) != 0 || !held {
		t.Fatalf("before A commits: %+v held=%v err=%v", evs, held, err)
	}
	close(releaseA)
	if err := <-aDone; err != nil {
		t.Fatal(err)
	}
	// Final once every older transaction on the cluster has ended (other
	// tests' databases share it).
	deadline := time.Now().Add(10 * time.Second)
	for {
		evs, held, err = outbox.After(ctx, head, 10)
		if err != nil || !held || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond) // polling the server-side horizon
	}
	if err != nil || held || len(evs) != 3 || evs[0].ID != "gap-a" || !evs[0].Pos().Before(evs[1].Pos()) || !evs[1].Pos().Before(evs[2].Pos()) {
		t.Fatalf("events after the gap: %+v held=%v err=%v", evs, held, err)
	}
	// Reading on from the last event gives nothing more.
	if more, _, _ := outbox.After(ctx, evs[2].Pos(), 10); len(more) != 0 {
		t.Fatalf("read twice: %+v", more)
	}
}

func TestOutboxConsumeAdvancesDurably(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	f := newWriteFixture(t, db)
	for _, n := range []string{"C-1", "C-2", "C-3"} {
		f.create(t, n)
	}
	dbtest.WaitOutboxFinal(t, db) // other tests' transactions share the server's horizon
	outbox := &storage.Outbox{DB: db}
	ctx := context.Background()
	// The horizon is the cluster's: other tests' open transactions may hold
	// these events back for a moment. Consume reads only final events.
	waitFinal(t, outbox, 3)
	var seen []string
	n, err := outbox.Consume(ctx, "test", 2, func(_ context.Context, _ *storage.Tx, evs []storage.OutboxEvent) error {
		for _, e := range evs {
			seen = append(seen, e.ID)
		}
		return nil
	})
	if err != nil || n != 2 {
		t.Fatalf("first batch: %d %v", n, err)
	}
	// A failing handler rolls back: the cursor does not move.
	if _, err := outbox.Consume(ctx, "test", 2, func(context.Context, *storage.Tx, []storage.OutboxEvent) error {
		return errors.New("boom")
	}); err == nil {
		t.Fatal("handler error swallowed")
	}
	n, err = outbox.Consume(ctx, "test", 2, func(_ context.Context, _ *storage.Tx, evs []storage.OutboxEvent) error {
		for _, e := range evs {
			seen = append(seen, e.ID)
		}
		return nil
	})
	if err != nil || n != 1 || len(seen) != 3 || seen[0] == seen[2] {
		t.Fatalf("second batch: %d %v %v", n, err, seen)
	}
	if n, _ := outbox.Consume(ctx, "test", 2, func(context.Context, *storage.Tx, []storage.OutboxEvent) error { return nil }); n != 0 {
		t.Fatalf("replayed %d events", n)
	}
}

// waitFinal waits until n events are final (below the visibility horizon)
// and none is held back.
func waitFinal(t *testing.T, outbox *storage.Outbox, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		evs, held, err := outbox.After(context.Background(), eventlog.Position{}, n+1)
		if err != nil {
			t.Fatal(err)
		}
		if !held && len(evs) == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("events not final: %d held=%v", len(evs), held)
		}
		time.Sleep(time.Millisecond) // polling the server-side horizon
	}
}

// compact re-renders stored jsonb (which reorders keys and adds spaces) in
// Go's canonical form.
func compact(t *testing.T, raw []byte) string {
	var v any
	_ = json.Unmarshal(raw, &v)
	return string(testkit.MustJSON(t, v))
}
