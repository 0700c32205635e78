package apptest_test

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/pires/go-proxyproto"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/httpedge"
	"github.com/haulgraph/haulgraph/lbtest"
)

// Behind real load balancers the per-address bounds see each client, not
// the balancer: clients A (127.0.0.2) and B (127.0.0.3) reach the instance
// (127.0.0.1) through the proxy at 127.0.0.1, the trusted one.

// behindProxy starts an instance trusting 127.0.0.1 whose token endpoint
// allows each address 3 requests (its clock never refills them).
func behindProxy(t *testing.T, configure func(*app.Config)) *apptest.Server {
	t.Helper()
	clk := &fixedClock{t: time.Now()}
	return apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.HTTP.TrustedProxies = httpedge.Proxies{netip.MustParsePrefix("127.0.0.1/32")}
		c.TokenAddressRateLimit, c.TokenAddressRateBurst = 1, 3
		c.RateLimitClock = clk.Now
		if configure != nil {
			configure(c)
		}
	}})
}

// badSecret posts a wrong secret to base's token endpoint from c, with the
// extra headers, and returns the status.
func badSecret(t *testing.T, c *http.Client, base string, srv *apptest.Server, header http.Header) int {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {randomClientID()}, "client_secret": {"wrong"},
		"audience": {srv.Config.Audience}}
	req, err := http.NewRequest(http.MethodPost, base+"/oauth/token", strings.NewReader(form.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	for k, v := range header {
		req.Header[k] = v
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}

// throttlesOneClient spends A's token-endpoint bucket through base and
// checks that B, through the same proxy, still gets its own.
func throttlesOneClient(t *testing.T, srv *apptest.Server, base string, forged http.Header) {
	t.Helper()
	a, b := from("127.0.0.2"), from("127.0.0.3")
	for i := range 3 {
		if got := badSecret(t, a, base, srv, forged); got != http.StatusUnauthorized {
			t.Fatalf("A's bad secret %d: %d, want 401", i+1, got)
		}
	}
	if got := badSecret(t, a, base, srv, forged); got != http.StatusTooManyRequests {
		t.Fatalf("A's 4th bad secret: %d, want 429", got)
	}
	if got := badSecret(t, b, base, srv, nil); got != http.StatusUnauthorized {
		t.Fatalf("B after A was throttled: %d, want 401 (its own bucket)", got)
	}
}

// directForgery: a client straight at the instance (127.0.0.4, untrusted)
// naming B in X-Forwarded-For and Forwarded spends its own bucket, not B's.
func directForgery(t *testing.T, srv *apptest.Server, base string) {
	t.Helper()
	forger := from("127.0.0.4")
	forged := http.Header{"X-Forwarded-For": {"127.0.0.3"}, "Forwarded": {"for=127.0.0.3"}}
	for range 3 {
		badSecret(t, forger, srv.URL, srv, forged)
	}
	if got := badSecret(t, forger, srv.URL, srv, forged); got != http.StatusTooManyRequests {
		t.Errorf("the forger's 4th: %d, want 429 on its own address", got)
	}
	if got := badSecret(t, from("127.0.0.3"), base, srv, nil); got != http.StatusUnauthorized {
		t.Errorf("B after the forgery named it: %d, want 401", got)
	}
}

// refused dials the instance from src, sends prefix and a request, and
// reports whether the connection ended unanswered.
func refused(t *testing.T, srv *apptest.Server, src string, prefix []byte) bool {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", strings.TrimPrefix(srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(30 * time.Second))
	_, _ = c.Write(append(prefix, "GET /healthz HTTP/1.1\r\nHost: haulgraph\r\n\r\n"...))
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatal("neither answered nor closed")
		}
		return true
	}
	res.Body.Close()
	return false
}

func proxyV2(t *testing.T, src string) []byte {
	t.Helper()
	h := proxyproto.HeaderProxyFromAddrs(2, net.TCPAddrFromAddrPort(netip.MustParseAddrPort(src)),
		net.TCPAddrFromAddrPort(netip.MustParseAddrPort("127.0.0.1:443")))
	b, err := h.Format()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// HAProxy with send-proxy-v2 (HAULGRAPH_PROXY_PROTOCOL=on): each client has
// its own token bucket and its own connections under the cap; a PROXY
// header from an untrusted peer, and a trusted peer without one, are
// refused.
func TestBehindHAProxy(t *testing.T) {
	t.Parallel()
	srv := behindProxy(t, func(c *app.Config) {
		c.HTTP.ProxyProtocol = true
		c.HTTP.MaxConnsPerAddr = 2
	})
	backend := strings.TrimPrefix(srv.URL, "http://")
	lb := "http://" + lbtest.HAProxy(t, `
frontend api
	mode http
	bind `+lbtest.Listen+`
	default_backend haulgraph
backend haulgraph
	mode http
	http-reuse never
	server one `+backend+` send-proxy-v2
`)
	// The connection cap (2) per client: C holds two through HAProxy, its
	// third is refused (HAProxy answers 502), D's is not. First, while no
	// idle connection of another test's client holds a place.
	hold := func(src string) int {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}, Timeout: 10 * time.Second}
		c, err := d.Dial("tcp", strings.TrimPrefix(lb, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: haulgraph\r\n\r\n")
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return 0
		}
		_, _ = io.Copy(io.Discard, res.Body)
		res.Body.Close()
		return res.StatusCode
	}
	for i := range 2 {
		if status := hold("127.0.0.5"); status != http.StatusOK {
			t.Fatalf("C's connection %d: %d", i+1, status)
		}
	}
	if status := hold("127.0.0.5"); status == http.StatusOK {
		t.Error("C's third connection was served: want it over the cap of 2")
	}
	if status := hold("127.0.0.6"); status != http.StatusOK {
		t.Errorf("D's connection while C is at its cap: %d", status)
	}
	throttlesOneClient(t, srv, lb, nil)
	directForgery(t, srv, lb)
	if !refused(t, srv, "127.0.0.4", proxyV2(t, "127.0.0.3:5000")) {
		t.Error("a PROXY header from an untrusted peer was answered")
	}
	if !refused(t, srv, "127.0.0.1", nil) {
		t.Error("the trusted proxy without a PROXY header was answered (HAULGRAPH_PROXY_PROTOCOL=on)")
	}
}

// nginx with X-Forwarded-For: each client has its own token bucket and its
// own WebSockets under the per-address cap, and an address a client puts in
// X-Forwarded-For itself is not taken (nginx appends the one it saw, the
// right-most untrusted hop).
func TestBehindNginx(t *testing.T) {
	t.Parallel()
	srv := behindProxy(t, func(c *app.Config) { c.WebsocketMaxPerAddress = 2 })
	lb := "http://" + lbtest.Nginx(t, `
	server {
		listen `+lbtest.Listen+`;
		location / {
			proxy_pass `+srv.URL+`;
			proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
		}
		location /graphql {
			proxy_pass `+srv.URL+`;
			# a location that sets any header inherits none: XFF again
			proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
			proxy_http_version 1.1;
			proxy_set_header Upgrade $http_upgrade;
			proxy_set_header Connection "upgrade";
		}
	}
`)
	throttlesOneClient(t, srv, lb, http.Header{"X-Forwarded-For": {"127.0.0.3"}, "Forwarded": {"for=127.0.0.3"}})
	directForgery(t, srv, lb)

	// WebSockets before connection_init, 2 per address: C's third is closed
	// with 4429, D's is served.
	tn := apptest.NewTenant(t, srv, "acme")
	token := srv.Token(t, tn, domain.ScopeLoadRead)
	ws := func(src string) *websocket.Conn {
		d := websocket.Dialer{HandshakeTimeout: 10 * time.Second, Subprotocols: []string{"graphql-transport-ws"},
			NetDialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}).DialContext}
		c, res, err := d.Dial("ws"+strings.TrimPrefix(lb, "http")+"/graphql", nil)
		if err != nil {
			t.Fatalf("dial through nginx from %s: %v", src, err)
		}
		_ = res.Body.Close()
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	ws("127.0.0.5")
	ws("127.0.0.5")
	if code, got := closedWith(t, ws("127.0.0.5")); code != 4429 || len(got) > 0 {
		t.Errorf("C's third socket: closed with %d after %v, want 4429", code, got)
	}
	initWS(t, ws("127.0.0.6"), token)
}
