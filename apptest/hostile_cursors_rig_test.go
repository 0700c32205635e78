package apptest_test

// The rig of the cursor tests: two tenants with loads and events, and the
// events API through REST, GraphQL, SSE and WebSocket.

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// cursorRig is one instance with tenants a and b whose writes interleave:
// b writes twice between each two of a's writes.
type cursorRig struct {
	srv          *apptest.Server
	a, b         apptest.Tenant
	readA, readB string
	// idsA are a's load.changed events in commit order (from the outbox).
	idsA []string
}

const cursorLoadsA = 8

func newCursorRig(t *testing.T) *cursorRig {
	t.Helper()
	r := &cursorRig{srv: apptest.Start(t, apptest.Options{})}
	r.a, r.b = apptest.NewTenant(t, r.srv, "acme"), apptest.NewTenant(t, r.srv, "bolt")
	r.readA, r.readB = r.srv.Token(t, r.a, domain.ScopeLoadRead), r.srv.Token(t, r.b, domain.ScopeLoadRead)
	writeA := r.srv.Token(t, r.a, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripUpdate)
	writeB := r.srv.Token(t, r.b, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripUpdate)
	for i := range cursorLoadsA {
		r.createLoad(t, writeA, r.a, fmt.Sprintf("A-%d", i))
		if i < cursorLoadsA-1 {
			r.createLoad(t, writeB, r.b, fmt.Sprintf("B-%d-1", i))
			r.createLoad(t, writeB, r.b, fmt.Sprintf("B-%d-2", i))
		}
	}
	rows, err := r.srv.DB.Pool.Query(t.Context(), `SELECT id FROM events WHERE tenant_id = $1 AND type = 'load.changed' ORDER BY xact, seq`, r.a.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		r.idsA = append(r.idsA, id)
	}
	if len(r.idsA) != cursorLoadsA {
		t.Fatalf("a has %d load.changed events, want %d", len(r.idsA), cursorLoadsA)
	}
	// The events API shows an event once no transaction older than its
	// own still runs anywhere in the cluster (eventlog.Position): other
	// tests' transactions may hold A's back for a moment.
	waitFor(t, 30*time.Second, "a's events visible through the events API", func() bool {
		return len(r.edges(t, r.readA, "", cursorLoadsA).Data.Events.Edges) == cursorLoadsA
	})
	return r
}

func (r *cursorRig) createLoad(t *testing.T, token string, tn apptest.Tenant, number string) {
	t.Helper()
	vars := map[string]any{"in": map[string]any{"loadNumber": number, "subsidiaryId": tn.SubsidiaryID.String(),
		"rate": map[string]any{"amount": 1500.50}, "commodity": "Paper", "trips": []any{map[string]any{"tripNumber": number + "-T1"}},
		"stops": []any{
			map[string]any{"type": "Pickup", "name": "Dock 1", "address": map[string]any{"street": "1 Parkway", "city": "Springfield", "state": "IL", "zipCode": "62701"}},
			map[string]any{"type": "Delivery", "name": "Dock 2", "address": map[string]any{"street": "2 Parkway", "city": "Springfield", "state": "IL", "zipCode": "62701"}},
		}}}
	status, body := r.post(t, token, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`, vars, nil)
	if status != http.StatusOK || strings.Contains(string(body), `"errors"`) {
		t.Fatalf("createLoad %s: %d %s", number, status, body)
	}
}

// cursorDo sends one request and reads the whole answer.
func cursorDo(t *testing.T, req *http.Request) (int, http.Header, []byte) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header, b
}

func (r *cursorRig) post(t *testing.T, token, query string, vars, ext map[string]any) (int, []byte) {
	t.Helper()
	body := map[string]any{"query": query, "variables": vars}
	if ext != nil {
		body["extensions"] = ext
		if query == "" {
			delete(body, "query")
		}
	}
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, r.srv.URL+"/graphql", strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	status, _, out := cursorDo(t, req)
	return status, out
}

// restEvents is GET /api/p/v1/events of load.changed after `after`.
func (r *cursorRig) restEvents(t *testing.T, token, after string, limit int) (int, http.Header, []byte) {
	t.Helper()
	q := url.Values{"type": {"load.changed"}, "limit": {fmt.Sprint(limit)}}
	if after != "" {
		q.Set("after", after)
	}
	req, _ := http.NewRequest(http.MethodGet, r.srv.URL+"/api/p/v1/events?"+q.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	return cursorDo(t, req)
}

type eventEdges struct {
	Data struct {
		Events struct {
			Edges []struct {
				Cursor string
				Node   struct{ ID string }
			}
		}
	}
}

const eventsQuery = `query($after: String, $first: Int) { events(first: $first, after: $after, types: ["load.changed"]) { edges { cursor node { ... on LoadEvent { id } } } } }`

// graphEvents is the events query of load.changed after `after`.
func (r *cursorRig) graphEvents(t *testing.T, token, after string, first int) (int, []byte) {
	t.Helper()
	vars := map[string]any{"first": first}
	if after != "" {
		vars["after"] = after
	}
	return r.post(t, token, eventsQuery, vars, nil)
}

func (r *cursorRig) edges(t *testing.T, token, after string, first int) eventEdges {
	t.Helper()
	status, body := r.graphEvents(t, token, after, first)
	var e eventEdges
	if err := json.Unmarshal(body, &e); status != http.StatusOK || err != nil || strings.Contains(string(body), `"errors"`) {
		t.Fatalf("events after %q: %d %s", after, status, body)
	}
	return e
}

type sseFrame struct{ id, event, data string }

// sseOpen opens loadChanged { id cursor } over SSE with after given as
// Last-Event-ID (GET, as an EventSource reconnects) or as after: (POST).
// Frames arrive on the channel until the stream ends; the reader is waited
// for when the test ends.
func (r *cursorRig) sseOpen(t *testing.T, token, after string, lastEventID bool) (status int, frames <-chan sseFrame, stop func()) {
	t.Helper()
	const sub = `subscription($after: String) { loadChanged(after: $after) { id cursor } }`
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	var req *http.Request
	if lastEventID {
		req, _ = http.NewRequestWithContext(ctx, http.MethodGet, r.srv.URL+"/graphql/stream?"+url.Values{"query": {sub}}.Encode(), nil)
		req.Header.Set("Last-Event-ID", after)
	} else {
		b, _ := json.Marshal(map[string]any{"query": sub, "variables": map[string]any{"after": after}})
		req, _ = http.NewRequestWithContext(ctx, http.MethodPost, r.srv.URL+"/graphql/stream", strings.NewReader(string(b)))
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	ch := make(chan sseFrame, 64)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		var f sseFrame
		for sc.Scan() {
			name, value, _ := strings.Cut(sc.Text(), ":")
			value = strings.TrimPrefix(value, " ")
			switch name {
			case "":
				if f != (sseFrame{}) {
					ch <- f
				}
				f = sseFrame{}
			case "id":
				f.id = value
			case "event":
				f.event = value
			case "data":
				f.data += value
			}
		}
	}()
	stop = func() { cancel(); <-done }
	t.Cleanup(stop)
	return res.StatusCode, ch, stop
}

// sseAnswer is the whole stream of a refused resume (status and frames).
func (r *cursorRig) sseAnswer(t *testing.T, token, after string, lastEventID bool) string {
	t.Helper()
	status, frames, stop := r.sseOpen(t, token, after, lastEventID)
	defer stop()
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d\n", status)
	for f := range frames {
		fmt.Fprintf(&sb, "%s|%s|%s\n", f.id, f.event, f.data)
		if f.event == "next" && !strings.Contains(f.data, `"errors"`) {
			break // an event: a resume, not a refusal
		}
	}
	return sb.String()
}

// wsAnswer is the first message a graphql-transport-ws subscription with
// after: cursor gets, as sent.
func (r *cursorRig) wsAnswer(t *testing.T, token, cursor string) string {
	t.Helper()
	d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"graphql-transport-ws"}}
	conn, res, err := d.Dial("ws"+strings.TrimPrefix(r.srv.URL, "http")+"/graphql", nil)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	_ = res.Body.Close()
	defer conn.Close()
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	frames := []any{map[string]any{"type": "connection_init", "payload": map[string]any{"Authorization": "Bearer " + token}},
		map[string]any{"id": "r", "type": "subscribe", "payload": map[string]any{
			"query": `subscription($after: String) { loadChanged(after: $after) { id cursor } }`, "variables": map[string]any{"after": cursor}}}}
	for _, f := range frames {
		if err := conn.WriteJSON(f); err != nil {
			t.Fatal(err)
		}
	}
	for {
		_, b, err := conn.ReadMessage()
		if err != nil {
			return "read: " + err.Error()
		}
		if !strings.Contains(string(b), `"connection_ack"`) && !strings.Contains(string(b), `"ping"`) {
			return string(b)
		}
	}
}

// readable reports what a cursor shows when base64-decoded, if it is text
// (32 random bytes are all printable once in 10^18).
func readable(c string) (string, bool) {
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(c); err == nil && len(b) > 0 && !slices.ContainsFunc(b, func(c byte) bool { return c < 0x20 || c > 0x7e }) {
			return string(b), true
		}
	}
	return "", false
}

// TestHostileCursorsOpaque: the cursors a receives on every transport
// (GraphQL edges, REST Link, SSE ids, subscription payloads) show no
// position, are not ordered like the events, and resume exactly.
