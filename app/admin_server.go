package app

import (
	"net"
	"net/http"
	"sync"
	"time"
)

// Bounds of the admin listener: like the public one's, sized for an
// operator's few tools. A CPU profile or trace runs up to its seconds
// parameter, so writes may take a while; idle keep-alives do not stay.
const (
	adminReadTimeout  = 10 * time.Second
	adminWriteTimeout = 2 * time.Minute
	adminIdleTimeout  = 30 * time.Second
	// AdminMaxConns bounds the admin listener's open connections.
	AdminMaxConns = 64
)

// AdminServer is the admin listener's server: AdminHandler with read,
// write and idle timeouts and 64 KiB of headers.
func (a *App) AdminServer() *http.Server {
	return &http.Server{Handler: a.AdminHandler(), ReadHeaderTimeout: adminReadTimeout, ReadTimeout: adminReadTimeout,
		WriteTimeout: adminWriteTimeout, IdleTimeout: adminIdleTimeout, MaxHeaderBytes: MaxHeaderBytes}
}

// AdminListener caps ln's open connections at AdminMaxConns: one more is
// closed as soon as it is accepted.
func (a *App) AdminListener(ln net.Listener) net.Listener {
	return &adminCapped{Listener: ln, slots: make(chan struct{}, AdminMaxConns)}
}

type adminCapped struct {
	net.Listener
	slots chan struct{}
}

func (l *adminCapped) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		select {
		case l.slots <- struct{}{}:
			return &cappedConn{Conn: c, release: func() { <-l.slots }}, nil
		default:
			_ = c.Close()
		}
	}
}

// adminHost is the host of the admin address, a name its Host header may
// carry ("" for none, or an address that is only a port).
func adminHost(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	return h
}

// cappedConn gives its admin place back when it closes (a hijacked WebSocket
// included: it is this conn that the WebSocket closes).
type cappedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

func (c *cappedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(c.release)
	return err
}

// NetConn is the accepted connection itself (ConnContext hands it on).
func (c *cappedConn) NetConn() net.Conn { return c.Conn }
