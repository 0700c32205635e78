package httpedge

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"sync"
	"syscall"
	"time"

	"github.com/pires/go-proxyproto"
)

// Listen is how the public listener takes connections: who may send a PROXY
// protocol header and the cap on connections per client address.
type Listen struct {
	// Proxies may send a PROXY header (v1 or v2); from any other peer one
	// is refused: the connection is closed.
	Proxies Proxies
	// RequireHeader refuses a connection from Proxies without a PROXY
	// header (HAULGRAPH_PROXY_PROTOCOL=on).
	RequireHeader bool
	// HeaderTimeout bounds the wait for the first bytes (the header or its
	// absence): a peer that connects and says nothing holds no slot longer.
	HeaderTimeout time.Duration
	// MaxPerAddr caps the connections open from one client address;
	// negative: no cap. A proxy's connection without a PROXY header is not
	// counted: it carries many clients' requests (X-Forwarded-For names
	// each), and the proxy bounds its own clients.
	MaxPerAddr int
	// Refused is told of every connection closed by the cap (metrics).
	Refused func()
}

// errOverCap ends a connection over the cap when its client is known.
var errOverCap = errors.New("httpedge: too many connections from this address")

// Wrap takes ln's connections as l says.
func (l Listen) Wrap(ln net.Listener) net.Listener {
	pl := &proxyproto.Listener{
		Listener: ln,
		ConnPolicy: func(o proxyproto.ConnPolicyOptions) (proxyproto.Policy, error) {
			if !l.Proxies.Trusts(addrOf(o.Upstream)) {
				return proxyproto.REJECT, nil
			}
			if l.RequireHeader {
				return proxyproto.REQUIRE, nil
			}
			return proxyproto.USE, nil
		},
		ReadHeaderTimeout: l.HeaderTimeout,
	}
	return &edgeListener{Listener: pl, l: l, open: map[netip.Addr]int{}}
}

type edgeListener struct {
	net.Listener
	l    Listen
	mu   sync.Mutex
	open map[netip.Addr]int
}

func (el *edgeListener) Accept() (net.Conn, error) {
	for {
		c, err := el.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ec := &edgeConn{Conn: c, el: el}
		if pc, ok := c.(*proxyproto.Conn); ok {
			ec.pc, ec.raw = pc, pc.Raw()
		} else {
			ec.raw = c
		}
		// A direct client is counted at once, before anything of it is
		// read; a proxy's client once its header has been read (first Read,
		// on the connection's own goroutine: Accept never waits for a peer).
		if peer := addrOf(ec.raw.RemoteAddr()); !el.l.Proxies.Trusts(peer) {
			if !el.take(ec, peer) {
				_ = c.Close()
				continue
			}
		}
		return ec, nil
	}
}

// take counts a connection of client a, false when a is at the cap.
func (el *edgeListener) take(ec *edgeConn, a netip.Addr) bool {
	if el.l.MaxPerAddr < 0 {
		return true
	}
	el.mu.Lock()
	full := el.open[a] >= el.l.MaxPerAddr
	if !full {
		el.open[a]++
	}
	el.mu.Unlock()
	if full {
		if el.l.Refused != nil {
			el.l.Refused()
		}
		return false
	}
	ec.setRelease(func() {
		el.mu.Lock()
		if el.open[a]--; el.open[a] <= 0 {
			delete(el.open, a)
		}
		el.mu.Unlock()
	})
	return true
}

// edgeConn is an accepted connection: it gives its place under the cap back
// when it closes (a hijacked WebSocket included: it is this conn that the
// WebSocket closes), and tells Clients.Wrap whether a PROXY header named
// its client.
type edgeConn struct {
	net.Conn          // what RemoteAddr and Read go through (the PROXY header's)
	raw      net.Conn // the socket
	pc       *proxyproto.Conn
	el       *edgeListener

	first    sync.Once
	firstErr error
	once     sync.Once
	mu       sync.Mutex // release is set on the connection's goroutine, run by whoever closes it
	release  func()
	counted  bool
	closed   bool
}

func (c *edgeConn) setRelease(f func()) {
	c.mu.Lock()
	closed := c.closed
	c.release, c.counted = f, true
	c.mu.Unlock()
	if closed { // closed while its header was read: give the place back now
		f()
	}
}

func (c *edgeConn) Read(p []byte) (int, error) {
	c.first.Do(func() {
		c.mu.Lock()
		counted := c.counted
		c.mu.Unlock()
		if c.pc == nil || counted || !c.proxied() {
			return
		}
		if !c.el.take(c, addrOf(c.pc.RemoteAddr())) {
			c.firstErr = errOverCap
			_ = c.raw.Close()
		}
	})
	if c.firstErr != nil {
		return 0, c.firstErr
	}
	return c.Conn.Read(p)
}

// proxied reports whether a PROXY header named the client (reading it first
// if nobody has).
func (c *edgeConn) proxied() bool {
	if c.pc == nil {
		return false
	}
	h := c.pc.ProxyHeader()
	return h != nil && !h.Command.IsLocal() && h.SourceAddr != nil
}

func (c *edgeConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.mu.Lock()
		release := c.release
		c.closed = true
		c.mu.Unlock()
		if release != nil {
			release()
		}
	})
	return err
}

// NetConn is the socket itself (ConnContext hands it on).
func (c *edgeConn) NetConn() net.Conn { return c.raw }

// SyscallConn keeps socket options reachable through the wrapper.
func (c *edgeConn) SyscallConn() (syscall.RawConn, error) {
	if sc, ok := c.raw.(syscall.Conn); ok {
		return sc.SyscallConn()
	}
	return nil, errors.ErrUnsupported
}

type connKey struct{}

// ConnContext is for the http.Server's ConnContext: it keeps the connection
// for Clients.Wrap and returns the socket under it (for those that set
// socket options). It reads nothing: it runs on the accept loop.
func ConnContext(ctx context.Context, c net.Conn) (context.Context, net.Conn) {
	ec, ok := c.(*edgeConn)
	if !ok {
		return ctx, c
	}
	return context.WithValue(ctx, connKey{}, ec), ec.raw
}

// addrOf is the IP of a TCP address (unmapped; invalid for any other).
func addrOf(a net.Addr) netip.Addr {
	if ta, ok := a.(*net.TCPAddr); ok {
		ip, _ := netip.AddrFromSlice(ta.IP)
		return ip.Unmap()
	}
	if ap, err := netip.ParseAddrPort(a.String()); err == nil {
		return ap.Addr().Unmap()
	}
	return netip.Addr{}
}
