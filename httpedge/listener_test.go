package httpedge_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/netip"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pires/go-proxyproto"

	"github.com/haulgraph/haulgraph/httpedge"
)

// serveEdge serves, on 127.0.0.1, a handler answering the request's client
// address, through l (127.0.0.1 is the trusted proxy) as app serves.
func serveEdge(t *testing.T, l httpedge.Listen) string {
	t.Helper()
	l.Proxies = httpedge.Proxies{netip.MustParsePrefix("127.0.0.1/32")}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{
		Handler: httpedge.Clients{Proxies: l.Proxies}.Wrap(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, httpedge.ClientHost(r))
		})),
		ReadHeaderTimeout: 10 * time.Second,
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			ctx, _ = httpedge.ConnContext(ctx, c)
			return ctx
		},
	}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l.Wrap(ln)) }()
	t.Cleanup(func() { _ = srv.Close(); <-done })
	return ln.Addr().String()
}

// dialFrom connects to addr from the loopback address from.
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a hung test fails, it does not hang
	return c
}

// proxyHeader is a PROXY header (version 1 or 2) naming client src.
func proxyHeader(t *testing.T, version byte, src string) []byte {
	t.Helper()
	h := proxyproto.HeaderProxyFromAddrs(version, net.TCPAddrFromAddrPort(netip.MustParseAddrPort(src)),
		&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 443})
	b, err := h.Format()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// ask sends prefix and a GET with the headers on c and returns the body,
// or false when the connection ends without an answer.
func ask(t *testing.T, c net.Conn, prefix []byte, header http.Header) (string, bool) {
	t.Helper()
	req, _ := http.NewRequest("GET", "http://edge/", nil)
	req.Header = header
	if _, err := c.Write(prefix); err != nil {
		return "", false
	}
	if err := req.Write(c); err != nil {
		return "", false
	}
	res, err := http.ReadResponse(bufio.NewReader(c), req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("no answer and no close")
		}
		return "", false
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return string(b), true
}

// A trusted peer names the client in a PROXY header (v1 or v2) or in
// X-Forwarded-For; an untrusted peer's header is ignored, and its PROXY
// header refused: the connection ends unanswered.
func TestListenClientAddress(t *testing.T) {
	t.Parallel()
	addr := serveEdge(t, httpedge.Listen{MaxPerAddr: -1})
	xff := http.Header{"X-Forwarded-For": {"198.51.100.1, 203.0.113.9"}}
	for _, c := range []struct {
		name, from string
		prefix     []byte
		header     http.Header
		want       string // "" refused
	}{
		{"trusted, v2", "127.0.0.1", proxyHeader(t, 2, "203.0.113.5:5000"), nil, "203.0.113.5"},
		{"trusted, v1", "127.0.0.1", proxyHeader(t, 1, "203.0.113.6:5000"), nil, "203.0.113.6"},
		{"trusted, v2 naming the client: its XFF is not read", "127.0.0.1", proxyHeader(t, 2, "203.0.113.5:5000"), xff, "203.0.113.5"},
		{"trusted, no PROXY header, XFF", "127.0.0.1", nil, xff, "203.0.113.9"},
		{"trusted, nothing", "127.0.0.1", nil, nil, "127.0.0.1"},
		{"untrusted, forged XFF", "127.0.0.2", nil, xff, "127.0.0.2"},
		{"untrusted, forged Forwarded", "127.0.0.2", nil, http.Header{"Forwarded": {"for=203.0.113.9"}}, "127.0.0.2"},
		{"untrusted, PROXY v2", "127.0.0.2", proxyHeader(t, 2, "203.0.113.5:5000"), nil, ""},
		{"untrusted, PROXY v1", "127.0.0.3", proxyHeader(t, 1, "203.0.113.5:5000"), nil, ""},
	} {
		got, ok := ask(t, dialFrom(t, c.from, addr), c.prefix, c.header)
		if c.want == "" && ok {
			t.Errorf("%s: answered %q, want the connection refused", c.name, got)
		}
		if c.want != "" && got != c.want {
			t.Errorf("%s: client %q (answered %v), want %s", c.name, got, ok, c.want)
		}
	}
}

// With the PROXY protocol required, a trusted peer without the header is
// refused, and one that says nothing is closed after the header timeout.
func TestListenRequiresHeader(t *testing.T) {
	t.Parallel()
	// A second for the header: a loaded machine may take longer than a
	// balancer to send it; the silent peer is closed after it.
	addr := serveEdge(t, httpedge.Listen{RequireHeader: true, HeaderTimeout: time.Second, MaxPerAddr: -1})
	if got, ok := ask(t, dialFrom(t, "127.0.0.1", addr), proxyHeader(t, 2, "203.0.113.5:5000"), nil); got != "203.0.113.5" {
		t.Fatalf("with the header: %q %v", got, ok)
	}
	if got, ok := ask(t, dialFrom(t, "127.0.0.1", addr), nil, nil); ok {
		t.Errorf("without the header: answered %q", got)
	}
	// An untrusted client needs none: the rule is the proxies'.
	if got, ok := ask(t, dialFrom(t, "127.0.0.2", addr), nil, nil); got != "127.0.0.2" {
		t.Errorf("an untrusted client: %q %v", got, ok)
	}
	silent := dialFrom(t, "127.0.0.1", addr)
	var ne net.Error
	if n, err := silent.Read(make([]byte, 1)); err == nil || errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("a silent peer: read %d, %v; want the connection closed by the server", n, err)
	}
}

// The per-address cap counts a proxied connection under the client its
// PROXY header names, and a direct one under its peer.
func TestListenCapPerClient(t *testing.T) {
	t.Parallel()
	var refused atomic.Int64
	addr := serveEdge(t, httpedge.Listen{MaxPerAddr: 1, Refused: func() { refused.Add(1) }})
	a := dialFrom(t, "127.0.0.1", addr)
	if got, _ := ask(t, a, proxyHeader(t, 2, "203.0.113.5:5000"), nil); got != "203.0.113.5" {
		t.Fatalf("first of A: %q", got)
	}
	if got, ok := ask(t, dialFrom(t, "127.0.0.1", addr), proxyHeader(t, 2, "203.0.113.5:5001"), nil); ok {
		t.Errorf("second of A answered %q: want it over the cap", got)
	}
	if got, _ := ask(t, dialFrom(t, "127.0.0.1", addr), proxyHeader(t, 2, "203.0.113.6:5000"), nil); got != "203.0.113.6" {
		t.Errorf("first of B: %q", got)
	}
	if got, _ := ask(t, dialFrom(t, "127.0.0.2", addr), nil, nil); got != "127.0.0.2" {
		t.Fatalf("direct: %q", got)
	}
	if got, ok := ask(t, dialFrom(t, "127.0.0.2", addr), nil, nil); ok {
		t.Errorf("second direct answered %q: want it over the cap", got)
	}
	if n := refused.Load(); n != 2 {
		t.Errorf("%d refusals counted, want 2", n)
	}
	// A's place comes back when it closes.
	_ = a.Close()
	var got string
	for range 200 { // the server sees the close asynchronously: poll, bounded
		if got, _ = ask(t, dialFrom(t, "127.0.0.1", addr), proxyHeader(t, 2, "203.0.113.5:5002"), nil); got != "" {
			break
		}
	}
	if got != "203.0.113.5" {
		t.Errorf("A after its first closed: %q", got)
	}
}
