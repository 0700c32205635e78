package events_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// A relay that starts while an older transaction A is open, after a younger
// one B has committed: B's event is behind the horizon, after the outbox
// head, and not final yet. Every event after the hub's position must still
// reach a subscriber registered now, B's included, in outbox order: a
// subscriber resuming on this instance replays from the log only up to that
// position and takes the rest live (graph/live.Resume), so an event the
// relay passed over without publishing would be lost to it for good.
func TestRelayStartedBehindAnOpenTransactionPublishesWhatCommittedAhead(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	tenant, sub := newTenant(t, db, "head")
	svc := &loads.Writes{Store: &storage.LoadWrites{DB: db}}
	caller := domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenant, Scopes: []domain.Scope{domain.ScopeLoadCreate}})
	create := func(n string) string {
		t.Helper()
		if _, err := svc.CreateLoad(caller, loads.Input{LoadNumber: n, SubsidiaryID: sub.String(), Stops: []loads.StopInput{{Type: "Pickup"}}}); err != nil {
			t.Fatal(err)
		}
		var id string
		if err := db.Pool.QueryRow(ctx, "SELECT id FROM events WHERE payload #>> '{data,load,LoadNumber}' = $1 AND tenant_id = $2", n, tenant).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	first := create("H-0")

	// A: an older writer, its event written, not committed.
	a, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Rollback(ctx) //nolint:errcheck
	aID := uuid.NewString() + "-0"
	if _, err := a.Exec(ctx, `INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload)
		SELECT $1, tenant_id, subsidiary_id, type, subject_id, payload FROM events WHERE id = $2`, aID, first); err != nil {
		t.Fatal(err)
	}
	var aXact int64
	if err := a.QueryRow(ctx, "SELECT pg_current_xact_id()::text::bigint").Scan(&aXact); err != nil {
		t.Fatal(err)
	}
	bID := create("H-B") // B: a younger writer, committed first

	_, hub := startRelay(t, db, time.Hour)
	ch, subscription := subscribe(hub, tenant)
	defer subscription.Close()
	from := hub.Position() // as a resume reads it: replay up to here, the rest comes live
	if from.Xact >= aXact {
		t.Fatalf("the hub stands at %v, past the open transaction's event", from)
	}
	if err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	last := create("H-C")

	var got []string
	for !slices.Contains(got, last) {
		got = append(got, receive(t, ch).ID)
	}
	// H-0's too when another test's transaction kept it from being final.
	want := eventsAfter(t, db, tenant, from)
	if !slices.Equal(got, want) || !slices.Equal(want[max(0, len(want)-3):], []string{aID, bID, last}) {
		t.Fatalf("after the hub's position %v the subscriber got %v,\nthe outbox holds %v (A %s, B %s, C %s)", from, got, want, aID, bID, last)
	}
}

// eventsAfter is the ids of tenant's events after pos, in outbox order.
func eventsAfter(t *testing.T, db *storage.DB, tenant uuid.UUID, pos eventlog.Position) []string {
	t.Helper()
	rows, err := db.Pool.Query(context.Background(), `SELECT id FROM events WHERE tenant_id = $1
		AND (xact, seq) > ($2::bigint::text::xid8, $3) ORDER BY xact, seq`, tenant, pos.Xact, pos.Seq)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}
