package apptest_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// The public server's connection bounds (docs/security.md, "HTTP
// connections"): every test here measures what the server holds, so none
// is parallel.

// httpServer starts an instance with limits (a high per-address cap unless
// the test sets one: every client here dials from 127.0.0.1).
func httpServer(t *testing.T, limits app.HTTPLimits) *apptest.Server {
	t.Helper()
	if limits.MaxConnsPerAddr == 0 {
		limits.MaxConnsPerAddr = 5000
	}
	return apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.HTTP = limits
		c.LegacyCutoff = time.Now().Add(24 * time.Hour) // the legacy token route still reads bodies
	}})
}

// dialRaw opens a TCP connection to srv from local (empty: any), with a
// small receive buffer when small is set (a client that stops reading then
// stalls the server after a few kilobytes instead of megabytes).
func dialRaw(t *testing.T, srv *apptest.Server, local string, small bool) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if local != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(local)}
	}
	if small {
		d.Control = func(_, _ string, c syscall.RawConn) error {
			var serr error
			err := c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
			if err != nil {
				return err
			}
			return serr
		}
	}
	c, err := d.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	return c
}

// head is a request's line and headers announcing a body of n bytes.
func head(method, path, token, contentType string, n int) string {
	h := method + " " + path + " HTTP/1.1\r\nHost: haulgraph\r\n"
	if token != "" {
		h += "Authorization: Bearer " + token + "\r\n"
	}
	if contentType != "" {
		h += "Content-Type: " + contentType + "\r\n"
	}
	if n > 0 {
		h += fmt.Sprintf("Content-Length: %d\r\n", n)
	}
	return h + "\r\n"
}

// readAnswer reads one response from c by deadline; nil with the error when
// none came (closed, reset, or the deadline).
func readAnswer(c net.Conn, br *bufio.Reader, deadline time.Time) (*http.Response, []byte, error) {
	_ = c.SetReadDeadline(deadline)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		return nil, nil, err
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	return res, b, nil
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// bodyRoute is a route that reads a request body, with the format its 408
// must have.
type bodyRoute struct {
	name, path, contentType string
	prefix                  string // the body's first bytes: what the route accepts, cut short
	token                   bool
	format                  format
}

// Slow bodies are cut: one that stops and one that trickles below the
// minimum rate both end with 408 in the route's format (or a closed
// connection) after the body timeout, on the anonymous token routes and on
// the authenticated ones alike.
// Bound: every slow body is cut within BodyTimeout (400 ms) + 2 s.
func TestHostileHTTPSlowBodies(t *testing.T) {
	const bodyTimeout = 400 * time.Millisecond
	srv := httpServer(t, app.HTTPLimits{BodyTimeout: bodyTimeout, BodyMinRate: 1024})
	res, err := seed.Run(context.Background(), srv.DB, seed.Options{Tenant: "slow", Scale: 1})
	if err != nil {
		t.Fatalf("seed: %v", err)
	}
	tn := apptest.Tenant{ID: res.TenantID, Slug: "slow", SubsidiaryID: res.SubsidiaryID}
	token := srv.Token(t, tn, domain.ScopeUserRead, domain.ScopeLoadRead, domain.Scope("load:update"))
	form, js := "client_id=", `{"Keyword":"`
	file := "--B\r\n" + `Content-Disposition: form-data; name="File"; filename="a.pdf"` + "\r\nContent-Type: application/pdf\r\n\r\n%PDF-"
	routes := []bodyRoute{
		{name: "token", path: "/oauth/token", contentType: "application/x-www-form-urlencoded", prefix: form, format: oauthJSON},
		{name: "revoke", path: "/oauth/revoke", contentType: "application/x-www-form-urlencoded", prefix: form, format: oauthJSON},
		{name: "legacy token", path: "/api/authentication/" + tn.ID.String() + "/token", contentType: "application/x-www-form-urlencoded", prefix: form, format: oauthJSON},
		{name: "graphql", path: "/graphql", contentType: "application/json", prefix: `{"query":"`, token: true, format: graphQLNoData},
		{name: "REST search", path: "/api/p/v1/users/search", contentType: "application/json", prefix: js, token: true, format: problemJSON},
		{name: "REST upload", path: "/api/p/v1/loads/" + res.LoadWithTrips + "/document", contentType: "multipart/form-data; boundary=B", prefix: file, token: true, format: problemJSON},
	}
	const perMode = 5
	type result struct {
		route   bodyRoute
		mode    string
		status  int
		ct      string
		body    []byte
		err     error
		elapsed time.Duration
	}
	var (
		mu      sync.Mutex
		results []result
		writers sync.WaitGroup
		readers sync.WaitGroup
		stop    = make(chan struct{})
	)
	for _, rt := range routes {
		for _, mode := range []string{"stalled", "trickling"} {
			for range perMode {
				c := dialRaw(t, srv, "", false)
				defer c.Close()
				tok := ""
				if rt.token {
					tok = token
				}
				if _, err := io.WriteString(c, head("POST", rt.path, tok, rt.contentType, 1<<20)+rt.prefix+strings.Repeat("x", 64)); err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				if mode == "trickling" {
					writers.Add(1)
					go func() { // 50 bytes a second, far under the minimum rate
						defer writers.Done()
						tick := time.NewTicker(20 * time.Millisecond)
						defer tick.Stop()
						for {
							select {
							case <-stop:
								return
							case <-tick.C:
								if _, err := c.Write([]byte("x")); err != nil {
									return
								}
							}
						}
					}()
				}
				readers.Add(1)
				go func() {
					defer readers.Done()
					res, b, err := readAnswer(c, bufio.NewReader(c), start.Add(bodyTimeout+2*time.Second))
					r := result{route: rt, mode: mode, err: err, elapsed: time.Since(start), body: b}
					if res != nil {
						r.status, r.ct = res.StatusCode, res.Header.Get("Content-Type")
					}
					mu.Lock()
					results = append(results, r)
					mu.Unlock()
				}()
			}
		}
	}
	readers.Wait()
	close(stop)
	writers.Wait()
	held := 0
	var slowest time.Duration
	for _, r := range results {
		slowest = max(slowest, r.elapsed)
		switch {
		case r.err != nil && isTimeout(r.err):
			held++
		case r.err != nil: // closed without an answer: cut as well
		case r.status != http.StatusRequestTimeout:
			t.Errorf("%s %s: status %d, want 408: %.300s", r.route.name, r.mode, r.status, r.body)
		default:
			res := &http.Response{StatusCode: r.status, Header: http.Header{"Content-Type": {r.ct}}}
			want := ""
			switch r.route.format {
			case oauthJSON:
				want = "invalid_request"
			case graphQLNoData:
				want = string(domain.CodeTimeout)
			}
			hostile{status: http.StatusRequestTimeout, format: r.route.format, want: want}.check(t, res, r.body)
		}
	}
	t.Logf("%d slow bodies, %d still held after %v; slowest answer %v", len(results), held, bodyTimeout+2*time.Second, slowest.Round(time.Millisecond))
	if held > 0 {
		t.Errorf("%d of %d slow bodies were still being read %v after they began", held, len(results), bodyTimeout+2*time.Second)
	}
}

// A request without a valid token is answered 401 at once, its body
// unread: headers announcing 1 MiB and no body get their answer, and 300
// anonymous 1 MiB bodies cost the server no memory.
// Bound: each 401 comes with none of the body sent (a server waiting for
// it would answer 408 at its body timeout); peak RSS grows less than
// 64 MiB over 300 bodies of 1 MiB.
func TestHostileHTTPBodiesAfterAuthentication(t *testing.T) {
	srv := httpServer(t, app.HTTPLimits{})
	for _, rt := range []bodyRoute{
		{name: "graphql", path: "/graphql", contentType: "application/json", format: graphQLNoData},
		{name: "graphql stream", path: "/graphql/stream", contentType: "application/json", format: graphQLNoData},
		{name: "graphql upload", path: "/graphql", contentType: "multipart/form-data; boundary=B", format: graphQLNoData},
		{name: "REST search", path: "/api/p/v1/users/search", contentType: "application/json", format: problemJSON},
		{name: "REST upload", path: "/api/p/v1/loads/L-1/document", contentType: "multipart/form-data; boundary=B", format: problemJSON},
		{name: "REST webhook", path: "/api/p/v1/webhooks", contentType: "application/json", format: problemJSON},
	} {
		for _, tok := range []string{"", "not-a-jwt"} {
			c := dialRaw(t, srv, "", false)
			start := time.Now()
			if _, err := io.WriteString(c, head("POST", rt.path, tok, rt.contentType, 1<<20)); err != nil {
				t.Fatal(err)
			}
			// The body never comes: any answer is given without it, and a
			// 408 (not 401) would say the server waited for it.
			res, b, err := readAnswer(c, bufio.NewReader(c), start.Add(app.DefaultBodyTimeout+5*time.Second))
			c.Close()
			switch {
			case err != nil:
				t.Errorf("%s (token %q): no answer after %v: %v", rt.name, tok, time.Since(start).Round(time.Millisecond), err)
			default:
				want := ""
				if rt.format == graphQLNoData {
					want = string(domain.CodeUnauthenticated)
				}
				hostile{status: http.StatusUnauthorized, format: rt.format, want: want}.check(t, res, b)
			}
		}
	}

	const n = 300
	body := make([]byte, 1<<20-1) // all but the last byte: a reader waits for it
	for i := range body {
		body[i] = 'a'
	}
	before := apptest.ReadUsage(t)
	apptest.ResetPeakRSS(t)
	var wg sync.WaitGroup
	answered := make(chan int, n)
	for range n {
		c := dialRaw(t, srv, "", false)
		defer c.Close()
		wg.Add(1)
		go func() {
			defer wg.Done()
			deadline := time.Now().Add(5 * time.Second)
			_ = c.SetWriteDeadline(deadline)
			if _, err := io.WriteString(c, head("POST", "/graphql", "", "application/json", 1<<20)); err != nil {
				return
			}
			_, _ = c.Write(body) // refused unread: the write may fail
			if res, _, err := readAnswer(c, bufio.NewReader(c), deadline); err == nil {
				answered <- res.StatusCode
			}
		}()
	}
	wg.Wait()
	close(answered)
	after := apptest.ReadUsage(t)
	got := 0
	for s := range answered {
		if s == http.StatusUnauthorized {
			got++
		}
	}
	grew := after.PeakRSS - before.RSS
	t.Logf("%d anonymous 1 MiB bodies: %d answered 401; peak RSS +%d MiB, CPU %v", n, got, grew>>20, (after.CPU - before.CPU).Round(time.Millisecond))
	if grew > 64<<20 {
		t.Errorf("peak RSS grew %d MiB over %d anonymous bodies, want < 64 MiB", grew>>20, n)
	}
	if got < n*9/10 {
		t.Errorf("only %d of %d anonymous bodies were answered 401", got, n)
	}
}

// Idle keep-alive connections are closed after the idle timeout.
// Bound: 1,000 connections idle after one /healthz each are all closed by
// the server (EOF, before a deadline far past IdleTimeout that only a server
// keeping them would reach), and their descriptors freed. The header
// timeout is long: a loaded machine may take seconds between dialling a
// connection and sending its request, which is not what this test is about.
func TestHostileHTTPIdleConnections(t *testing.T) {
	const idle = 500 * time.Millisecond
	srv := httpServer(t, app.HTTPLimits{IdleTimeout: idle, ReadHeaderTimeout: 5 * time.Minute})
	const n = 1000
	base := apptest.ReadUsage(t)
	conns := make([]net.Conn, n)
	readers := make([]*bufio.Reader, n)
	for i := range conns {
		conns[i] = dialRaw(t, srv, "", false)
		defer conns[i].Close()
		readers[i] = bufio.NewReader(conns[i])
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for w := range 50 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 50 {
				if _, err := io.WriteString(conns[i], "GET /healthz HTTP/1.1\r\nHost: haulgraph\r\n\r\n"); err != nil {
					errs <- err
					continue
				}
				res, _, err := readAnswer(conns[i], readers[i], time.Now().Add(10*time.Second))
				if err != nil {
					errs <- err
				} else if res.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("healthz %d", res.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("healthz: %v", err)
	}
	open := apptest.ReadUsage(t)
	served := time.Now()
	// Each connection now idles; the server must close it (EOF here).
	closed := make(chan bool, n)
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = conns[i].SetReadDeadline(served.Add(idle + 30*time.Second))
			_, err := readers[i].ReadByte()
			closed <- err != nil && !isTimeout(err)
		}()
	}
	wg.Wait()
	close(closed)
	shut := 0
	for c := range closed {
		if c {
			shut++
		}
	}
	waited := time.Since(served)
	for _, c := range conns {
		c.Close()
	}
	t.Logf("%d idle connections: fds +%d while open; %d closed by the server within %v", n, open.FDs-base.FDs, shut, waited.Round(time.Millisecond))
	if shut != n {
		t.Errorf("%d of %d idle connections still open %v after their last answer (idle timeout %v)", n-shut, n, waited.Round(time.Millisecond), idle)
	}
	waitFor(t, 30*time.Second, "the descriptors of the closed connections freed", func() bool {
		return apptest.ReadUsage(t).FDs <= base.FDs+20
	})
}
