package app_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// cuttingProxy stands between the app and PostgreSQL on 127.0.0.1: cut
// breaks every connection and refuses new ones (the database is gone),
// restore lets them through again.
type cuttingProxy struct {
	ln       net.Listener
	upstream func() (net.Conn, error)
	wg       sync.WaitGroup

	mu    sync.Mutex
	down  bool
	conns map[net.Conn]struct{}
}

// newCuttingProxy proxies to the server of dbURL and returns the URL of the
// same database through the proxy.
func newCuttingProxy(t *testing.T, dbURL string) (*cuttingProxy, string) {
	t.Helper()
	cfg, err := pgconn.ParseConfig(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	network, addr := "tcp", net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))
	if strings.HasPrefix(cfg.Host, "/") { // with-pg.sh's cluster listens on a socket only
		network, addr = "unix", fmt.Sprintf("%s/.s.PGSQL.%d", cfg.Host, cfg.Port)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cuttingProxy{ln: ln, conns: map[net.Conn]struct{}{},
		upstream: func() (net.Conn, error) { return net.Dial(network, addr) }}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(func() { ln.Close(); p.cut(); p.wg.Wait() })
	u := url.URL{Scheme: "postgres", User: url.User(cfg.User), Host: ln.Addr().String(), Path: "/" + cfg.Database, RawQuery: "sslmode=disable"}
	return p, u.String()
}

func (p *cuttingProxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		if !down {
			p.conns[c] = struct{}{}
		}
		p.mu.Unlock()
		if down {
			c.Close()
			continue
		}
		up, err := p.upstream()
		if err != nil {
			p.drop(c)
			continue
		}
		p.mu.Lock()
		p.conns[up] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(c, up)
		go p.pipe(up, c)
	}
}

// pipe copies until either side ends, then ends both.
func (p *cuttingProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	p.drop(dst)
	p.drop(src)
}

func (p *cuttingProxy) drop(c net.Conn) {
	p.mu.Lock()
	delete(p.conns, c)
	p.mu.Unlock()
	c.Close()
}

func (p *cuttingProxy) cut() {
	p.mu.Lock()
	p.down = true
	conns := p.conns
	p.conns = map[net.Conn]struct{}{}
	p.mu.Unlock()
	for c := range conns {
		c.Close()
	}
}

func (p *cuttingProxy) restore() {
	p.mu.Lock()
	p.down = false
	p.mu.Unlock()
}

// With PostgreSQL unreachable every transport answers 503 with
// Retry-After in its own format, says nothing of SQL or addresses, and
// /readyz is 503; once it is back, everything answers again.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	proxy, dbURL := newCuttingProxy(t, dbtest.URL(t))
	srv := apptest.Start(t, apptest.Options{DatabaseURL: dbURL, Configure: func(c *app.Config) { c.DBConnectTimeout = 2 * time.Second }})
	tenant := apptest.NewTenant(t, srv, "outage")
	token := srv.Token(t, tenant, domain.ScopeTrailerRead)
	// A client the token endpoint has not seen yet: nothing of it is cached.
	clientID, secret := srv.Client(t, tenant, domain.ScopeTrailerRead)
	tokenForm := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret},
		"audience": {srv.Config.Audience}}.Encode()
	revokeForm := url.Values{"client_id": {clientID}, "client_secret": {secret}, "token": {token}}.Encode()
	const form = "application/x-www-form-urlencoded"
	graphQLQuery := `{"query":"{ trailers(first: 1) { edges { node { id } } } }"}`

	rest := func() (int, http.Header, string) { return call(t, "GET", srv.URL+"/api/p/v1/trailers", token, "", "") }
	gql := func() (int, http.Header, string) {
		return call(t, "POST", srv.URL+"/graphql", token, "application/json", graphQLQuery)
	}
	if status, _, body := rest(); status != http.StatusOK {
		t.Fatalf("before the outage: REST %d %s", status, body)
	}

	proxy.cut()
	_, port, _ := net.SplitHostPort(proxy.ln.Addr().String())
	leaks := []string{"SELECT", "sql", "127.0.0.1", port, "dial", "connect", "postgres", "pgx", "EOF"}
	check := func(what string, status int, h http.Header, body, contentType string) {
		t.Helper()
		if status != http.StatusServiceUnavailable || h.Get("Retry-After") == "" || !strings.HasPrefix(h.Get("Content-Type"), contentType) {
			t.Errorf("%s during the outage: %d Retry-After %q %s: %s", what, status, h.Get("Retry-After"), h.Get("Content-Type"), body)
		}
		for _, leak := range leaks {
			if strings.Contains(strings.ToLower(body), strings.ToLower(leak)) {
				t.Errorf("%s during the outage says %q: %s", what, leak, body)
			}
		}
	}
	status, h, body := rest()
	check("REST", status, h, body, "application/problem+json")
	var problem struct{ Status int }
	if json.Unmarshal([]byte(body), &problem); problem.Status != http.StatusServiceUnavailable {
		t.Errorf("REST problem: %s", body)
	}
	for _, ep := range []struct{ path, body string }{{"/oauth/token", tokenForm}, {"/oauth/revoke", revokeForm}} {
		status, h, body = call(t, "POST", srv.URL+ep.path, "", form, ep.body)
		check(ep.path, status, h, body, "application/json")
		var oauth struct{ Error string }
		if json.Unmarshal([]byte(body), &oauth); oauth.Error != "temporarily_unavailable" {
			t.Errorf("%s: error %q, want temporarily_unavailable", ep.path, oauth.Error)
		}
	}
	status, h, body = gql()
	check("GraphQL", status, h, body, "application/json")
	var answer struct {
		Errors []struct{ Extensions map[string]any }
	}
	if json.Unmarshal([]byte(body), &answer); len(answer.Errors) == 0 || answer.Errors[0].Extensions["code"] != "SERVICE_UNAVAILABLE" {
		t.Errorf("GraphQL errors: %s", body)
	}
	// A WebSocket: its upgrade is refused the same way (the rate limits
	// cannot charge it, and a limiter never fails open), so a client
	// retries the handshake after Retry-After.
	_, res, err := websocket.DefaultDialer.Dial("ws"+strings.TrimPrefix(srv.URL, "http")+"/graphql", http.Header{"Sec-WebSocket-Protocol": {"graphql-transport-ws"}})
	if err == nil || res == nil {
		t.Fatalf("WebSocket during the outage: upgraded (%v)", err)
	}
	wsBody, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	check("WebSocket upgrade", res.StatusCode, res.Header, string(wsBody), "application/json")
	if !strings.Contains(string(wsBody), `"code":"SERVICE_UNAVAILABLE"`) {
		t.Errorf("WebSocket upgrade during the outage: %s", wsBody)
	}
	if status, body := get(t, srv.AdminURL+"/readyz"); status != http.StatusServiceUnavailable || !strings.Contains(body, "database unreachable") {
		t.Errorf("/readyz during the outage: %d %s", status, body)
	}
	if f, _ := scrape(t, srv); f.value("haulgraph_database_up") != 0 {
		t.Errorf("haulgraph_database_up during the outage: %v", f.value("haulgraph_database_up"))
	}

	proxy.restore()
	// A pooled connection broken by the cut may fail one more request; the
	// next ones are served.
	recovers := func(what string, try func() (int, http.Header, string)) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			status, _, body := try()
			if status == http.StatusOK {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s after the outage: %d %s", what, status, body)
			}
		}
	}
	recovers("REST", rest)
	recovers("GraphQL", gql)
	recovers("token", func() (int, http.Header, string) { return call(t, "POST", srv.URL+"/oauth/token", "", form, tokenForm) })
	recovers("readyz", func() (int, http.Header, string) { s, b := get(t, srv.AdminURL+"/readyz"); return s, nil, b })
	if status, _, body := gql(); status != http.StatusOK || strings.Contains(body, `"errors"`) {
		t.Fatalf("GraphQL after the outage: %d %s", status, body)
	}
}
