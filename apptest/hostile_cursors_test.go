package apptest_test

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// Event cursors and persisted queries between two tenants: A's cursors
// tell nothing of B's writes, a cursor A does not own is answered as one
// that never existed, and B cannot run or evict A's persisted queries.

func TestHostileCursorsOpaque(t *testing.T) {
	t.Parallel()
	r := newCursorRig(t)

	// GraphQL edges, one page.
	e := r.edges(t, r.readA, "", 100)
	var graphCursors []string
	for i, edge := range e.Data.Events.Edges {
		if i >= len(r.idsA) || edge.Node.ID != r.idsA[i] {
			t.Fatalf("events: edge %d is %s, want %v", i, edge.Node.ID, r.idsA)
		}
		graphCursors = append(graphCursors, edge.Cursor)
	}
	if len(graphCursors) != len(r.idsA) {
		t.Fatalf("events: %d edges, want %d", len(graphCursors), len(r.idsA))
	}
	// REST, a page of one at a time along Link rel="next": every event once.
	var restCursors, restIDs []string
	after := ""
	for range len(r.idsA) + 1 {
		status, h, body := r.restEvents(t, r.readA, after, 1)
		var page []struct{ ID string }
		if err := json.Unmarshal(body, &page); status != http.StatusOK || err != nil {
			t.Fatalf("REST events after %q: %d %s", after, status, body)
		}
		for _, p := range page {
			restIDs = append(restIDs, p.ID)
		}
		link := h.Get("Link")
		if link == "" {
			break
		}
		u, err := url.Parse(strings.TrimSuffix(strings.TrimPrefix(strings.Split(link, ">")[0], "<"), ">"))
		if err != nil {
			t.Fatalf("Link %q: %v", link, err)
		}
		after = u.Query().Get("after")
		restCursors = append(restCursors, after)
	}
	if !slices.Equal(restIDs, r.idsA) {
		t.Fatalf("REST paging by one: %v, want %v", restIDs, r.idsA)
	}
	// SSE: resumed from the first event, ids and payload cursors of the rest.
	var sseIDs, sseCursors, sseEvents []string
	for _, lastEventID := range []bool{true, false} {
		status, frames, stop := r.sseOpen(t, r.readA, graphCursors[0], lastEventID)
		if status != http.StatusOK {
			t.Fatalf("SSE resume: %d", status)
		}
		var got []string
		for f := range frames {
			var p struct {
				Data struct{ LoadChanged struct{ ID, Cursor string } }
			}
			if f.event != "next" || json.Unmarshal([]byte(f.data), &p) != nil || p.Data.LoadChanged.ID == "" {
				t.Fatalf("SSE resume: %+v", f)
			}
			got = append(got, p.Data.LoadChanged.ID)
			sseIDs, sseCursors = append(sseIDs, f.id), append(sseCursors, p.Data.LoadChanged.Cursor)
			if len(got) == len(r.idsA)-1 {
				break
			}
		}
		stop()
		if !slices.Equal(got, r.idsA[1:]) {
			t.Fatalf("SSE resume (Last-Event-ID %v) from the first event: %v, want %v", lastEventID, got, r.idsA[1:])
		}
		sseEvents = append(sseEvents, got...)
	}

	// Nothing readable: the old cursors showed "ev1:<xact>.<seq>", and the
	// gap between two of a's was b's writes.
	leaks := 0
	for name, cs := range map[string][]string{"GraphQL": graphCursors, "REST Link": restCursors, "SSE id": sseIDs, "subscription payload": sseCursors} {
		for _, c := range cs {
			if s, ok := readable(c); ok {
				leaks++
				if leaks <= 3 {
					t.Errorf("%s cursor %s reads %q", name, c, s)
				}
			}
		}
	}
	if leaks > 0 {
		var between int
		if err := r.srv.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM events WHERE tenant_id = $1
			AND (xact, seq) > (SELECT xact, seq FROM events WHERE tenant_id = $2 ORDER BY xact, seq LIMIT 1)
			AND (xact, seq) < (SELECT xact, seq FROM events WHERE tenant_id = $2 ORDER BY xact DESC, seq DESC LIMIT 1)`, r.b.ID, r.a.ID).Scan(&between); err != nil {
			t.Log(err)
		}
		t.Errorf("%d of a's cursors read as positions; b has %d events among a's that the gaps show", leaks, between)
	}
	// Not ordered like the events (8 events: a random order is sorted once in 40320).
	if slices.IsSorted(graphCursors) || slices.IsSortedFunc(graphCursors, func(x, y string) int { return strings.Compare(y, x) }) {
		t.Errorf("a's cursors are ordered like its events: %v", graphCursors)
	}
	// The same event has the same cursor everywhere.
	for i := range restCursors {
		if restCursors[i] != graphCursors[i] {
			t.Errorf("REST cursor %d %s, GraphQL %s", i, restCursors[i], graphCursors[i])
		}
	}
	for i, id := range sseIDs {
		if id != sseCursors[i] {
			t.Errorf("SSE id %s, payload cursor %s", id, sseCursors[i])
		}
	}
	if len(sseEvents) != 2*(len(r.idsA)-1) {
		t.Errorf("SSE: %d events", len(sseEvents))
	}
	// Every cursor resumes exactly after its event.
	for i, c := range graphCursors {
		e := r.edges(t, r.readA, c, 1)
		switch {
		case i == len(graphCursors)-1 && len(e.Data.Events.Edges) != 0:
			t.Errorf("after the last event came %v", e.Data.Events.Edges)
		case i < len(graphCursors)-1 && (len(e.Data.Events.Edges) != 1 || e.Data.Events.Edges[0].Node.ID != r.idsA[i+1]):
			t.Errorf("after event %d came %v, want %s", i, e.Data.Events.Edges, r.idsA[i+1])
		}
	}
}

// TestHostileCursorsForged: every cursor a does not own (b's positions in
// the old format, positions between a's, b's own cursors, a's cursor
// altered, random bytes) gets byte for byte the answer of a cursor that
// never existed, on REST /events, GraphQL events(after:), SSE
// Last-Event-ID and the subscription's after: (SSE and WebSocket).
func TestHostileCursorsForged(t *testing.T) {
	t.Parallel()
	r := newCursorRig(t)
	old := func(xact, seq int64) string {
		return base64.RawURLEncoding.EncodeToString(fmt.Appendf(nil, "ev1:%d.%d", xact, seq))
	}
	random := func(n int) string {
		b := make([]byte, n)
		_, _ = rand.Read(b)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	forged := map[string]string{"garbage": "not-a-cursor", "random 16": random(16), "random 64": random(64)}
	rows, err := r.srv.DB.Pool.Query(t.Context(), `SELECT tenant_id = $1, xact::text::bigint, seq FROM events WHERE tenant_id IN ($1, $2) ORDER BY xact, seq`, r.a.ID, r.b.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var mine bool
		var xact, seq int64
		if err := rows.Scan(&mine, &xact, &seq); err != nil {
			t.Fatal(err)
		}
		if mine {
			forged[fmt.Sprintf("a's own position %d.%d, old format", xact, seq)] = old(xact, seq)
			forged[fmt.Sprintf("after a's %d.%d, old format", xact, seq)] = old(xact, seq+1)
		} else {
			forged[fmt.Sprintf("b's %d.%d, old format", xact, seq)] = old(xact, seq)
		}
	}
	rows.Close()
	mine := r.edges(t, r.readA, "", 100).Data.Events.Edges
	for i, e := range r.edges(t, r.readB, "", 3).Data.Events.Edges {
		forged[fmt.Sprintf("b's cursor %d", i)] = e.Cursor
	}
	c := []byte(mine[2].Cursor)
	c[len(c)/2] ^= 1
	if c[len(c)/2] == '-' || c[len(c)/2] == '_' || c[len(c)/2] > 'z' {
		c[len(c)/2] = 'A'
	}
	forged["a's cursor altered"] = string(c)

	never := random(32) // a cursor that never existed
	type answers struct{ rest, graph, sseID, sseAfter, ws string }
	// Two parts of an answer vary by request whatever the cursor: REST's
	// traceId and the cost budget left (it refills with time).
	traceID := regexp.MustCompile(`"traceId":"[0-9a-f]*"`)
	budget := regexp.MustCompile(`"currentlyAvailable":[0-9]+`)
	answer := func(cursor string) answers {
		status, h, body := r.restEvents(t, r.readA, cursor, 5)
		if status >= 500 {
			t.Fatalf("REST after %q: %d %s", cursor, status, body)
		}
		gs, gb := r.graphEvents(t, r.readA, cursor, 5)
		return answers{
			rest:     fmt.Sprintf("%d %s %s", status, h.Get("Content-Type"), traceID.ReplaceAll(body, []byte(`"traceId":"…"`))),
			graph:    fmt.Sprintf("%d %s", gs, budget.ReplaceAll(gb, []byte(`"currentlyAvailable":…`))),
			sseID:    r.sseAnswer(t, r.readA, cursor, true),
			sseAfter: r.sseAnswer(t, r.readA, cursor, false),
			ws:       r.wsAnswer(t, r.readA, cursor),
		}
	}
	want := answer(never)
	if !strings.HasPrefix(want.rest, "400 application/problem+json") {
		t.Fatalf("a cursor that never existed: %s", want.rest)
	}
	for _, a := range []string{want.graph, want.sseID, want.sseAfter, want.ws} {
		if !strings.Contains(a, `"code":"BAD_USER_INPUT"`) {
			t.Fatalf("a cursor that never existed: %s", a)
		}
	}
	differ := map[string]int{}
	for _, name := range slices.Sorted(maps.Keys(forged)) {
		got := answer(forged[name])
		for transport, pair := range map[string][2]string{"REST": {got.rest, want.rest}, "GraphQL": {got.graph, want.graph},
			"SSE Last-Event-ID": {got.sseID, want.sseID}, "SSE after:": {got.sseAfter, want.sseAfter}, "WebSocket after:": {got.ws, want.ws}} {
			if pair[0] != pair[1] {
				if differ[transport]++; differ[transport] <= 2 {
					t.Errorf("%s, %s:\n got %s\nwant %s", transport, name, pair[0], pair[1])
				}
			}
		}
	}
	if len(differ) > 0 {
		t.Errorf("of %d forged cursors, answered unlike one that never existed: %v", len(forged), differ)
	}
}

// TestHostilePersistedQueries: a persisted query is its tenant's: b cannot
// run a's hash, and a's 1,100 registrations leave b's entries in place.
func TestHostilePersistedQueries(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	r := &cursorRig{srv: srv}
	a, b := apptest.NewTenant(t, srv, "acme"), apptest.NewTenant(t, srv, "bolt")
	tokA, tokB := srv.Token(t, a, domain.ScopeLoadRead), srv.Token(t, b, domain.ScopeLoadRead)
	ext := func(q string) map[string]any {
		sum := sha256.Sum256([]byte(q))
		return map[string]any{"persistedQuery": map[string]any{"version": 1, "sha256Hash": hex.EncodeToString(sum[:])}}
	}
	code := func(body []byte) string {
		var out struct {
			Data   json.RawMessage
			Errors []struct{ Extensions struct{ Code string } }
		}
		_ = json.Unmarshal(body, &out)
		if len(out.Errors) > 0 {
			return out.Errors[0].Extensions.Code
		}
		return "ran"
	}
	register := func(tok, q string) {
		t.Helper()
		if _, body := r.post(t, tok, q, nil, ext(q)); code(body) != "ran" {
			t.Fatalf("registering %s: %s", q, body)
		}
	}
	run := func(tok, q string) string {
		t.Helper()
		_, body := r.post(t, tok, "", nil, ext(q))
		return code(body)
	}
	qa, qb := `query OnlyA { __typename }`, `query OnlyB { __typename }`
	register(tokA, qa)
	register(tokB, qb)
	if got := run(tokA, qa); got != "ran" {
		t.Fatalf("a's own hash: %s", got)
	}
	if got := run(tokB, qa); got != "PERSISTED_QUERY_NOT_FOUND" {
		t.Errorf("b ran a's hash: %s", got)
	}
	for i := range 1100 {
		register(tokA, fmt.Sprintf("query A%d { __typename }", i))
	}
	if got := run(tokB, qb); got != "ran" {
		t.Errorf("after a's 1,100 registrations b's hash answers %s", got)
	}
	if got := run(tokA, "query A1099 { __typename }"); got != "ran" {
		t.Errorf("a's latest registration answers %s", got)
	}
}

// TestHostileResumeHangUp: clients that hang up while their resume is
// replaying stored events. The replay hands events to the execution while
// the hang-up closes its stream from another goroutine: the two must not
// race (a send on the closed channel would panic the connection's
// goroutine).
func TestHostileResumeHangUp(t *testing.T) {
	t.Parallel()
	r := newCursorRig(t)
	first := r.edges(t, r.readA, "", 1).Data.Events.Edges[0].Cursor
	for range 30 {
		status, frames, stop := r.sseOpen(t, r.readA, first, true)
		if status != http.StatusOK {
			t.Fatalf("resume: %d", status)
		}
		<-frames // the first replayed event: the replay is under way
		stop()
	}
	// The server still serves the tenant's resumes in full.
	_, frames, stop := r.sseOpen(t, r.readA, first, false)
	defer stop()
	for i := 1; i < len(r.idsA); i++ {
		f := <-frames
		if !strings.Contains(f.data, r.idsA[i]) {
			t.Fatalf("after hang-ups, event %d is %+v, want %s", i, f, r.idsA[i])
		}
	}
}
