package board_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
)

// artifacts is where the test leaves its screenshots: .data/artifacts of
// the checkout (a test runs in its package's directory).
func artifacts(t *testing.T) string {
	t.Helper()
	dir := filepath.Join("..", ".data", "artifacts")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// proxy stands between the browser and the server so that the test can cut
// the network: Pause closes every connection and refuses new ones until
// Resume.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	paused bool
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.Pause()
		p.wg.Wait()
	})
	return p
}

func (p *proxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *proxy) serve() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.paused {
			p.mu.Unlock()
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.wg.Add(1)
		p.mu.Unlock()
		go p.pipe(c, up)
	}
}

func (p *proxy) pipe(a, b net.Conn) {
	defer p.wg.Done()
	done := make(chan struct{})
	go func() { _, _ = io.Copy(b, a); b.Close(); close(done) }()
	_, _ = io.Copy(a, b)
	a.Close()
	<-done
	p.mu.Lock()
	delete(p.conns, a)
	delete(p.conns, b)
	p.mu.Unlock()
}

// Pause drops every connection (the board's WebSocket among them) and
// refuses new ones.
func (p *proxy) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.paused = true
	for c := range p.conns {
		c.Close()
	}
}

func (p *proxy) Resume() { p.mu.Lock(); p.paused = false; p.mu.Unlock() }

// changeStatus moves a load through the GraphQL API, straight to the server.
func changeStatus(t *testing.T, srv *apptest.Server, token, load string, to domain.LoadStatus) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"query":     `mutation($n: String!, $s: LoadStatus!) { changeLoadStatus(loadNumber: $n, status: $s) { status } }`,
		"variables": map[string]any{"n": load, "s": to},
	})
	req, _ := http.NewRequest("POST", srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), `"status":"`+string(to)+`"`) {
		t.Fatalf("changeLoadStatus %s → %s: %d %s", load, to, res.StatusCode, b)
	}
}

// setCustomer gives a load another customer through the GraphQL API.
func setCustomer(t *testing.T, srv *apptest.Server, token, load, customer string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"query":     `mutation($n: String!, $c: ID) { updateLoad(loadNumber: $n, input: {customerId: $c}) { customerId } }`,
		"variables": map[string]any{"n": load, "c": customer},
	})
	req, _ := http.NewRequest("POST", srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), customer) || strings.Contains(string(b), `"errors"`) {
		t.Fatalf("updateLoad %s customer: %d %s", load, res.StatusCode, b)
	}
}

// createLoad creates a load with a pickup and a delivery through the API.
func createLoad(t *testing.T, srv *apptest.Server, token, number, subsidiary string) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{
		"query": `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
		"variables": map[string]any{"in": map[string]any{"loadNumber": number, "subsidiaryId": subsidiary,
			"stops": []map[string]any{{"type": "Pickup", "name": "Board Test Origin"}, {"type": "Delivery", "name": "Board Test Destination"}}}},
	})
	req, _ := http.NewRequest("POST", srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK || !strings.Contains(string(b), number) || strings.Contains(string(b), `"errors"`) {
		t.Fatalf("createLoad: %d %s", res.StatusCode, b)
	}
}

// inOrder asserts the board's order: by status (the transition order of
// docs/events-api.md's transition table), newest load number first within a status.
func inOrder(t *testing.T, ctx context.Context) {
	t.Helper()
	rs, err := rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rank := map[string]int{}
	for i, s := range domain.LoadStatuses {
		rank[string(s)] = i
	}
	for i := 1; i < len(rs); i++ {
		a, b := rs[i-1], rs[i]
		if rank[a.Status] > rank[b.Status] || (a.Status == b.Status && a.Load < b.Load) {
			t.Fatalf("rows out of order at %d: %v then %v", i, a, b)
		}
	}
}

// row is one board row as the page shows it; Customer is the customer
// cell's text ("—" first when the load has no customer).
type row struct{ Load, Status, Customer string }

func rows(ctx context.Context) ([]row, error) {
	return chromedp.Run(ctx, chromedp.Evaluate[[]row](`[...document.querySelectorAll("#loads tbody tr")].map(tr => ({Load: tr.dataset.load, Status: tr.dataset.status,
		Customer: tr.querySelector('td[data-label="Customer"]').textContent}))`))
}

// shownRow is the board's row of load.
func shownRow(t *testing.T, ctx context.Context, load string) row {
	t.Helper()
	rs, err := rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if r.Load == load {
			return r
		}
	}
	t.Fatalf("load %s is not on the board", load)
	return row{}
}

// movable picks a shown load with a customer that can change status, and
// its next status.
func movable(t *testing.T, ctx context.Context, skip map[string]bool) (string, domain.LoadStatus) {
	t.Helper()
	rs, err := rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if next := loads.NextStatuses(domain.LoadStatus(r.Status)); len(next) > 0 && !skip[r.Load] && !strings.HasPrefix(r.Customer, "—") {
			return r.Load, next[0]
		}
	}
	t.Fatalf("no load on the board can change status: %v", rs)
	return "", ""
}

func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(artifacts(t), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

// A dispatcher signs in with a client's id and secret, sees the seeded
// loads, sees a status change made through the API within 2 s, and after
// the connection drops sees, once reconnected, a change made meanwhile.
func TestBoardInChromium(t *testing.T) {
	url, res := seedtest.URL(t, seed.Options{Tenant: "acme", Scale: 1})
	srv := apptest.Start(t, apptest.Options{DatabaseURL: url})
	tenant := apptest.Tenant{ID: res.TenantID, Slug: "acme", SubsidiaryID: res.SubsidiaryID}
	clientID, secret := srv.Client(t, tenant, domain.ScopeLoadRead, domain.ScopeDriverRead)
	writer := srv.Token(t, tenant, domain.ScopeLoadUpdate)
	creator := srv.Token(t, tenant, domain.ScopeLoadCreate)
	px := newProxy(t, strings.TrimPrefix(srv.URL, "http://"))

	bctx := apptest.Browser(t, 1280, 800)
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()

	// Sign in with client credentials; the seeded loads appear.
	err := chromedp.Do(ctx,
		chromedp.Navigate(px.URL()+"/board"),
		chromedp.WaitVisible(chromedp.CSS("#client-id")),
		chromedp.SendKeys(chromedp.CSS("#client-id"), clientID),
		chromedp.SendKeys(chromedp.CSS("#client-secret"), secret),
		chromedp.Click(chromedp.CSS(`#credentials-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#loads tbody tr`)),
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="live"]`)),
	)
	if err != nil {
		t.Fatalf("sign-in: %v", err)
	}
	shown, err := rows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(shown) != 50 {
		t.Fatalf("the board shows %d loads, want the first page of 50", len(shown))
	}
	stored, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.cookie`))
	if err != nil {
		t.Fatal(err)
	}
	if stored != "{}{}" {
		t.Fatalf("the board stored something outside memory: %s", stored)
	}

	// A status change through the API shows, pushed by the open
	// subscription: the page sends no request for it (a bound on round
	// trips, not on time: a loaded machine is slower, not wrong), and the
	// row keeps its customer.
	load, next := movable(t, ctx, nil)
	before := shownRow(t, ctx, load)
	requests := pageRequests(t, ctx)
	changeStatus(t, srv, writer, load, next)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#loads tbody tr[data-load=%q][data-status=%q]`, load, next)))); err != nil {
		t.Fatalf("load %s → %s did not show: %v", load, next, err)
	}
	if n := pageRequests(t, ctx) - requests; n != 0 {
		t.Fatalf("the board sent %d requests to show load %s → %s, want none (the subscription pushes it)", n, load, next)
	}
	if after := shownRow(t, ctx, load); after.Customer != before.Customer {
		t.Fatalf("the live update changed load %s's customer cell from %q to %q", load, before.Customer, after.Customer)
	}
	inOrder(t, ctx)

	// A live change of customer shows the new customer's name.
	var otherCustomer, otherName string
	err = srv.DB.Pool.QueryRow(ctx, `SELECT c.id::text, c.name FROM customers c WHERE c.tenant_id = $1
		AND c.id IS DISTINCT FROM (SELECT customer_id FROM loads WHERE tenant_id = $1 AND load_number = $2)
		ORDER BY c.name LIMIT 1`, res.TenantID, load).Scan(&otherCustomer, &otherName)
	if err != nil {
		t.Fatal(err)
	}
	setCustomer(t, srv, writer, load, otherCustomer)
	err = chromedp.Do(ctx, chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.querySelector('#loads tbody tr[data-load=%q] td[data-label="Customer"]')?.textContent.startsWith(%q)`, load, otherName)))
	if err != nil {
		t.Fatalf("load %s's new customer %q did not show: %v (row %v)", load, otherName, err, shownRow(t, ctx, load))
	}

	// A new load appears in its place (Open, newest first).
	createLoad(t, srv, creator, "LD-9000001", res.SubsidiaryID.String())
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#loads tbody tr[data-load="LD-9000001"][data-status="Open"]`))); err != nil {
		t.Fatalf("the new load did not appear: %v", err)
	}
	inOrder(t, ctx)
	screenshot(t, ctx, "board-1280x800.png")

	// The network drops: the board says so; a change made meanwhile shows
	// once it has reconnected.
	px.Pause()
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="reconnecting"]`))); err != nil {
		t.Fatalf("the board never showed the dropped connection: %v", err)
	}
	load2, next2 := movable(t, ctx, map[string]bool{load: true})
	changeStatus(t, srv, writer, load2, next2)
	px.Resume()
	err = chromedp.Do(ctx,
		chromedp.WaitVisible(chromedp.CSS(`#conn[data-state="live"]`)),
		chromedp.WaitVisible(chromedp.CSS(fmt.Sprintf(`#loads tbody tr[data-load=%q][data-status=%q]`, load2, next2))),
	)
	if err != nil {
		t.Fatalf("after reconnecting, load %s → %s did not show: %v", load2, next2, err)
	}

	// Phone width: still one table, every cell labelled.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(390, 844)); err != nil {
		t.Fatal(err)
	}
	screenshot(t, ctx, "board-390x844.png")
}

// pageRequests is how many requests (fetches, scripts, images...) the page
// has sent since it loaded; a WebSocket's messages are not requests.
func pageRequests(t *testing.T, ctx context.Context) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`performance.getEntriesByType("resource").length`))
	if err != nil {
		t.Fatal(err)
	}
	return n
}
