package rest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/testkit"
)

// An after that names an event no longer kept (pruned by the 30-day
// retention) or never known is 410 Gone with errors.after on every REST
// version and CURSOR_EXPIRED on the GraphQL events connection; before, a
// pruned cursor silently listed from the oldest event kept and a pruned id
// was a 400.
func TestEventsCursorExpired(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	oas := newOpenAPIChecker(t, srv.URL)
	acme, globex := apptest.NewTenant(t, srv, "acme"), apptest.NewTenant(t, srv, "globex")
	write := srv.Token(t, acme, domain.ScopeLoadCreate)
	stops := []map[string]any{{"type": "Pickup", "name": "A"}, {"type": "Delivery", "name": "B"}}
	for _, n := range []string{"X-1", "X-2", "X-3"} {
		gqlData(t, srv, write, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
			map[string]any{"in": map[string]any{"loadNumber": n, "subsidiaryId": acme.SubsidiaryID, "stops": stops}})
	}
	waitFinal(t, srv)
	reader := srv.Token(t, acme, domain.ScopeLoadRead)
	var conn struct {
		Edges []struct {
			Cursor string
			Node   struct{ ID string }
		}
	}
	data := gqlData(t, srv, reader, `{ events { edges { cursor node { ... on LoadEvent { id } } } } }`, nil)
	if err := json.Unmarshal(data["events"], &conn); err != nil || len(conn.Edges) != 3 {
		t.Fatalf("events: %s", data["events"])
	}
	pruned, kept := conn.Edges[0], conn.Edges[1]

	// The first event ages past retention and the real prune removes it.
	execSQL(t, srv, "UPDATE events SET created_at = now() - interval '31 days' WHERE id = ?", pruned.Node.ID)
	store := storage.NewWebhookStore(srv.DB, nil)
	eventually(t, "the old event pruned", func() bool {
		if _, err := store.PruneHistory(context.Background(), time.Now().Add(-30*24*time.Hour)); err != nil {
			t.Fatal(err)
		}
		return len(eventIDs(t, srv, "id = ?", pruned.Node.ID)) == 0
	})

	get := func(t *testing.T, version, after, token string) (*http.Response, []byte) {
		t.Helper()
		u := srv.URL + "/api/p/" + version + "/events?after=" + url.QueryEscape(after)
		res, b := testkit.Request(t, "GET", u, map[string]string{"Authorization": "Bearer " + token}, "")
		oas.check(t, "GET", u, "", "", res, b)
		return res, b
	}
	for _, v := range versions {
		for name, after := range map[string]string{
			"pruned id": pruned.Node.ID, "pruned cursor": pruned.Cursor,
			"unknown id": uuid.NewString() + "-0", "unknown cursor": srv.Events.Log.Cursors.Seal(acme.ID, eventlog.Position{Xact: 1, Seq: 1 << 40}),
		} {
			res, body := get(t, v, after, reader)
			p := wantProblem(t, res, body, http.StatusGone)
			if len(p.Errors["after"]) == 0 {
				t.Fatalf("%s %s: errors %v do not name after: %s", v, name, p.Errors, body)
			}
		}
		// A kept event's id and cursor still page on.
		for _, after := range []string{kept.Node.ID, kept.Cursor} {
			res, body := get(t, v, after, reader)
			if got := ids(t, list(t, res, body)); len(got) != 1 {
				t.Fatalf("%s after a kept event: %v", v, got)
			}
		}
		// Another tenant's event id is as unknown as any (410), its cursor
		// no cursor at all (400): nothing tells it is another tenant's.
		res, body := get(t, v, kept.Node.ID, srv.Token(t, globex, domain.ScopeLoadRead))
		if p := wantProblem(t, res, body, http.StatusGone); len(p.Errors["after"]) == 0 {
			t.Fatalf("%s another tenant's id: %s", v, body)
		}
		res, body = get(t, v, kept.Cursor, srv.Token(t, globex, domain.ScopeLoadRead))
		wantFieldError(t, res, body, "after")
	}

	// GraphQL: the same rule, CURSOR_EXPIRED naming after.
	for _, after := range []string{pruned.Cursor, pruned.Node.ID} {
		_, errs := gqlRaw(t, srv, reader, `query($after: String) { events(after: $after) { edges { cursor } } }`, map[string]any{"after": after})
		var got []struct {
			Extensions struct {
				Code   string
				Fields map[string][]string
			}
		}
		if err := json.Unmarshal(errs, &got); err != nil || len(got) != 1 || got[0].Extensions.Code != "CURSOR_EXPIRED" || len(got[0].Extensions.Fields["after"]) == 0 {
			t.Fatalf("GraphQL events after %s: %s", after, errs)
		}
	}
}
