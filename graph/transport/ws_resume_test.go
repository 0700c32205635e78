package transport_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

const resumeQuery = `subscription($after: String) { loadChanged(after: $after) { id cursor data { load { loadNumber } } } }`

type resumedEvent struct{ ID, Cursor string }

// TestSubscriptionResumes: a board that lost its connection resumes with
// its last cursor and receives exactly the events it missed, in commit
// order — including those committed by concurrent writers while it
// reconnects and replays — then the live ones, with no gap and no duplicate.
func TestSubscriptionResumes(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	read, write := srv.Token(t, tn, domain.ScopeLoadRead), writer(t, srv, tn)
	writeLoads := func(prefix string, n, writers int) {
		var wg sync.WaitGroup
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += writers {
					mustGQL(t, srv, write, createLoad, createLoadVars(fmt.Sprintf("%s-%d", prefix, i), tn.SubsidiaryID.String(), 1))
				}
			}()
		}
		wg.Wait()
	}

	first := connect(t, srv, "graphql-transport-ws", read)
	first.subscribe("board", resumeQuery, nil)
	waitSubscribers(t, srv, 1)
	mustGQL(t, srv, write, createLoad, createLoadVars("R-first", tn.SubsidiaryID.String(), 1))
	last := field[resumedEvent](t, first.event("board").Data["loadChanged"])
	_ = first.c.Close()
	waitSubscribers(t, srv, 0)

	writeLoads("R-away", 30, 4) // while the board is away
	during := make(chan struct{})
	go func() { defer close(during); writeLoads("R-during", 20, 4) }() // while it reconnects and replays
	board := connect(t, srv, "graphql-transport-ws", read)
	board.subscribe("board", resumeQuery, map[string]any{"after": last.Cursor})
	<-during
	mustGQL(t, srv, write, createLoad, createLoadVars("R-live", tn.SubsidiaryID.String(), 1))

	want := loadEventsAfter(t, srv, tn.ID, last.ID)
	if len(want) != 51 {
		t.Fatalf("the outbox holds %d events after the cursor, want 51", len(want))
	}
	var got []string
	for range want {
		got = append(got, field[resumedEvent](t, board.event("board").Data["loadChanged"]).ID)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("resumed stream:\n got %v\nwant %v", got, want)
	}
	// Nothing more: the next message is the next write's event.
	mustGQL(t, srv, write, createLoad, createLoadVars("R-after", tn.SubsidiaryID.String(), 1))
	next := field[struct {
		Data struct{ Load struct{ LoadNumber string } }
	}](t, board.event("board").Data["loadChanged"])
	if next.Data.Load.LoadNumber != "R-after" {
		t.Fatalf("after the resumed stream came %+v", next)
	}
	if g := srv.GraphQL.Live.Groups(); g != 1 {
		t.Fatalf("%d groups: the resumed board should share the live execution", g)
	}
}

// TestResumeRefusals: a malformed, expired or foreign cursor is an error for
// that operation (never a silent fresh start); the connection stays open.
func TestResumeRefusals(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	a, b := apptest.NewTenant(t, srv, "acme"), apptest.NewTenant(t, srv, "bolt")
	w := connect(t, srv, "graphql-transport-ws", srv.Token(t, a, domain.ScopeLoadRead))
	w.subscribe("a", resumeQuery, nil)
	waitSubscribers(t, srv, 1)
	mustGQL(t, srv, writer(t, srv, a), createLoad, createLoadVars("F-1", a.SubsidiaryID.String(), 1))
	ev := field[resumedEvent](t, w.event("a").Data["loadChanged"])

	other := connect(t, srv, "graphql-transport-ws", srv.Token(t, b, domain.ScopeLoadRead))
	for _, c := range []struct {
		w            *wsClient
		cursor, code string
	}{
		{other, ev.Cursor, "BAD_USER_INPUT"},           // tenant A's cursor is no cursor of B's
		{other, ev.ID, "CURSOR_EXPIRED"},               // and A's id is as unknown to B as any
		{w, "not-a-cursor", "BAD_USER_INPUT"},          // malformed
		{w, uuid.NewString() + "-0", "CURSOR_EXPIRED"}, // no longer kept (or never was)
		{w, srv.Events.Subscriptions.Cursors.Seal(a.ID, eventlog.Position{Xact: 1, Seq: 999999999}), "CURSOR_EXPIRED"}, // a position with no event
		{other, uuid.NewString() + "-1", "CURSOR_EXPIRED"},                                                             // same for tenant B
	} {
		c.w.subscribe("r", resumeQuery, map[string]any{"after": c.cursor})
		m := c.w.read()
		if m.Type != "error" || m.ID != "r" || !strings.Contains(string(m.Payload), `"`+c.code+`"`) {
			t.Fatalf("after %q: %s %s %s, want %s", c.cursor, m.Type, m.ID, m.Payload, c.code)
		}
	}
	// The connection and its live subscription are unaffected.
	mustGQL(t, srv, writer(t, srv, a), createLoad, createLoadVars("F-2", a.SubsidiaryID.String(), 1))
	if e := field[resumedEvent](t, w.event("a").Data["loadChanged"]); e.ID == ev.ID {
		t.Fatal("the live subscription repeated an event")
	}
	// A resume from the latest cursor with nothing missed is simply live.
	w.subscribe("r", resumeQuery, map[string]any{"after": ev.Cursor})
	waitSubscribers(t, srv, 2)
	got := w.events(1) // F-2's event, replayed to r
	if _, ok := got["r"]; !ok {
		t.Fatalf("the resume from before F-2 did not replay it: %v", got)
	}
}

// loadEventsAfter is the ids of the tenant's load.changed events after the
// event lastID in the outbox, in commit order: what a resumed board must get.
func loadEventsAfter(t *testing.T, srv *apptest.Server, tenant uuid.UUID, lastID string) []string {
	t.Helper()
	rows, err := srv.DB.Pool.Query(t.Context(), `SELECT id FROM events WHERE tenant_id = $1 AND type = 'load.changed'
		AND (xact, seq) > (SELECT xact, seq FROM events WHERE id = $2) ORDER BY xact, seq`, tenant, lastID)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// TestResumeOnAnInstanceStartedBehindAnOpenTransaction is a rolling
// restart's case. A new instance starts while an older write A is still
// open and a younger one B has committed: B is past the outbox head, not
// final yet. A board resumes on the new instance, before A commits, with the
// cursor the other instance gave it: it gets every event after the cursor in
// commit order, A's and B's included, then the live ones.
func TestResumeOnAnInstanceStartedBehindAnOpenTransaction(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.URL(t)
	old := apptest.Start(t, apptest.Options{DatabaseURL: dbURL})
	tn := apptest.NewTenant(t, old, "acme")
	write, sub := writer(t, old, tn), tn.SubsidiaryID.String()
	first := connect(t, old, "graphql-transport-ws", old.Token(t, tn, domain.ScopeLoadRead))
	first.subscribe("board", resumeQuery, nil)
	waitSubscribers(t, old, 1)
	mustGQL(t, old, write, createLoad, createLoadVars("S-first", sub, 1))
	cursor := field[resumedEvent](t, first.event("board").Data["loadChanged"])
	_ = first.c.Close()
	mustGQL(t, old, write, createLoad, createLoadVars("S-replayed", sub, 1))
	replayed := loadEventsAfter(t, old, tn.ID, cursor.ID)

	// A: an older writer, its event written, not committed (a copy of the
	// last one's row: any load.changed row will do).
	ctx := t.Context()
	a, err := old.DB.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Rollback(ctx) //nolint:errcheck
	if _, err := a.Exec(ctx, `INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload)
		SELECT $1, tenant_id, subsidiary_id, type, subject_id, payload FROM events WHERE id = $2`, uuid.NewString()+"-0", replayed[0]); err != nil {
		t.Fatal(err)
	}
	mustGQL(t, old, write, createLoad, createLoadVars("S-B", sub, 1)) // B: a younger writer, committed first

	srv := apptest.Start(t, apptest.Options{DatabaseURL: dbURL})
	board := connect(t, srv, "graphql-transport-ws", srv.Token(t, tn, domain.ScopeLoadRead))
	board.subscribe("board", resumeQuery, map[string]any{"after": cursor.Cursor})
	// The replay (read up to where the new instance's hub stands, behind A).
	if got := field[resumedEvent](t, board.event("board").Data["loadChanged"]).ID; got != replayed[0] {
		t.Fatalf("replayed %s, want %s", got, replayed[0])
	}
	if err := a.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	mustGQL(t, old, write, createLoad, createLoadVars("S-C", sub, 1))

	want := loadEventsAfter(t, srv, tn.ID, replayed[0]) // A, B, C
	if len(want) != 3 {
		t.Fatalf("the outbox holds %d events after the replayed one, want 3", len(want))
	}
	var got []string
	for !slices.Contains(got, want[2]) {
		got = append(got, field[resumedEvent](t, board.event("board").Data["loadChanged"]).ID)
	}
	if !slices.Equal(got, want) {
		t.Fatalf("after the replay:\n got %v\nwant %v (A, B, C in commit order)", got, want)
	}
}
