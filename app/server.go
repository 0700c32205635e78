package app

import (
	"bufio"
	"context"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/transport"
	"github.com/haulgraph/haulgraph/httpedge"
	"github.com/haulgraph/haulgraph/rest"
)

// withDefaults fills the zero fields of l.
func (l HTTPLimits) withDefaults() HTTPLimits {
	if l.ReadHeaderTimeout <= 0 {
		l.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	if l.BodyMinRate <= 0 {
		l.BodyMinRate = DefaultBodyMinRate
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = DefaultWriteTimeout
	}
	if l.MaxConnsPerAddr == 0 {
		l.MaxConnsPerAddr = DefaultMaxConnsPerAddr
	}
	return l
}

// NewServer is the public http.Server of the instance (serve, the tests
// and the benchmarks all use it): header and idle timeouts here, the body
// and write bounds in Handler, the PROXY header and the per-address cap
// in Listener.
func (a *App) NewServer() *http.Server {
	l := a.Config.HTTP.withDefaults()
	return &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: l.ReadHeaderTimeout,
		IdleTimeout:       l.IdleTimeout,
		MaxHeaderBytes:    MaxRequestHead,
		ConnContext:       a.ConnContext,
	}
}

// Listener takes the public listener's connections (httpedge.Listen): a
// PROXY protocol header only from the trusted proxies (required from them
// with HTTPLimits.ProxyProtocol), read within the header timeout, and the
// cap on connections per client address, one over it closed before anything
// of its request is read.
func (a *App) Listener(ln net.Listener) net.Listener {
	l := a.Config.HTTP.withDefaults()
	return httpedge.Listen{
		Proxies:       l.TrustedProxies,
		RequireHeader: l.ProxyProtocol,
		HeaderTimeout: l.ReadHeaderTimeout,
		MaxPerAddr:    l.MaxConnsPerAddr,
		Refused:       func() { a.Metrics.RateLimited("connections") },
	}.Wrap(ln)
}

// ConnContext is the http.Server's ConnContext: the client address reads
// the connection's PROXY header through it, and GraphQL event streams bound
// their socket's send buffer.
func (a *App) ConnContext(ctx context.Context, c net.Conn) context.Context {
	ctx, c = httpedge.ConnContext(ctx, c)
	return transport.ConnContext(ctx, c)
}

// connBounds are the body and write bounds of every request (HTTPLimits).
type connBounds struct{ HTTPLimits }

// errBodyTimeout is what a body read returns once the body bound cut it.
var errBodyTimeout = &domain.Error{Code: domain.CodeTimeout, Message: "the request body did not arrive in time"}

// Wrap bounds reading next's request bodies and writing its responses.
func (b connBounds) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		bw := &boundedWriter{ResponseWriter: w, rc: http.NewResponseController(w), timeout: b.WriteTimeout}
		var body *boundedBody
		if r.Body != nil && r.Body != http.NoBody {
			body = &boundedBody{body: r.Body, w: bw, r: r, start: time.Now(), idle: b.BodyTimeout, rate: b.BodyMinRate}
			r.Body = body
			bw.body = body
		}
		next.ServeHTTP(bw, r)
		bw.refresh() // the server writes what is left after the handler returns
		if body != nil && !body.done && !bw.hijacked() {
			// A body the handler left unread (a refusal before reading:
			// 401, 413, 429) is not awaited before the answer; after it,
			// the rest is drained within bounds (linger.go).
			body.linger(bw, r)
		}
	})
}

// hijacked reports whether the handler took the connection over.
func (w *boundedWriter) hijacked() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.took
}

// boundedWriter refreshes the connection's write deadline before every
// write and flush: a write that blocks longer than the timeout (a client
// that stopped reading) fails, and the handler sees the error. A handler
// that sets its own write deadline keeps it.
type boundedWriter struct {
	http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration

	mu       sync.Mutex
	own      bool // the handler sets its deadlines itself, or hijacked the connection
	took     bool // the handler hijacked the connection
	answered bool // the body bound answered 408: the handler's answer goes nowhere

	body     *boundedBody // the request's; nil without one
	held     int          // a refusal's status, held until the handler returns (linger.go)
	heldBody []byte
}

func (w *boundedWriter) refresh() {
	if !w.own {
		_ = w.rc.SetWriteDeadline(time.Now().Add(w.timeout))
	}
}

func (w *boundedWriter) WriteHeader(status int) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.answered || w.hold(status) {
		return
	}
	w.refresh()
	w.ResponseWriter.WriteHeader(status)
}

func (w *boundedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.answered {
		return 0, errBodyTimeout
	}
	if w.held != 0 {
		if len(w.heldBody)+len(p) <= maxHeld {
			w.heldBody = append(w.heldBody, p...)
			return len(p), nil
		}
		w.release(false)
	}
	w.refresh()
	return w.ResponseWriter.Write(p)
}

func (w *boundedWriter) FlushError() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.answered {
		return errBodyTimeout
	}
	if w.held != 0 {
		w.release(false)
	}
	w.refresh()
	return w.rc.Flush()
}

func (w *boundedWriter) Flush() { _ = w.FlushError() }

func (w *boundedWriter) SetWriteDeadline(t time.Time) error {
	w.mu.Lock()
	w.own = true
	w.mu.Unlock()
	return w.rc.SetWriteDeadline(t)
}

func (w *boundedWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	w.mu.Lock()
	w.own, w.took = true, true
	if w.held != 0 {
		w.release(false)
	}
	w.mu.Unlock()
	return w.rc.Hijack()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *boundedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// timedOut answers 408 in the route's format and closes the connection.
func (w *boundedWriter) timedOut(r *http.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.answered {
		return
	}
	w.answered = true
	w.refresh()
	w.Header().Set("Connection", "close")
	p := r.URL.Path
	switch {
	case p == "/graphql" || strings.HasPrefix(p, "/graphql/"):
		transport.Refuse(w.ResponseWriter, r, http.StatusRequestTimeout, errBodyTimeout)
	case strings.HasPrefix(p, "/oauth/") || strings.HasPrefix(p, "/api/authentication/"):
		auth.WriteOAuthError(w.ResponseWriter, http.StatusRequestTimeout, "invalid_request", errBodyTimeout.Message)
	default:
		rest.WriteProblem(w.ResponseWriter, r, http.StatusRequestTimeout, errBodyTimeout.Message, nil)
	}
}

// boundedBody cuts a body that stops for the body timeout, or that after
// it arrives slower on average than the minimum rate: before each read the
// connection's read deadline is the earlier of now + timeout and
// start + timeout + bytes read / rate.
type boundedBody struct {
	body  io.ReadCloser
	w     *boundedWriter
	r     *http.Request
	start time.Time
	idle  time.Duration
	rate  int64
	n     int64
	done  bool // the body ended: the server's own reads follow, unbounded here
}

func (b *boundedBody) Read(p []byte) (int, error) {
	if b.done {
		return b.body.Read(p)
	}
	_ = b.w.rc.SetReadDeadline(bodyDeadline(b.start, time.Now(), b.idle, b.rate, b.n))
	n, err := b.body.Read(p)
	b.n += int64(n)
	if err != nil {
		b.done = true
		_ = b.w.rc.SetReadDeadline(time.Time{})
		if errors.Is(err, os.ErrDeadlineExceeded) {
			b.w.timedOut(b.r)
			return n, errBodyTimeout
		}
	}
	return n, err
}

// bodyDeadline is the earlier of now + idle and start + idle + n/rate (the
// credit of n bytes read at rate bytes per second). rate must be positive.
func bodyDeadline(start, now time.Time, idle time.Duration, rate, n int64) time.Time {
	deadline := now.Add(idle)
	credit := float64(max(n, 0)) / float64(rate) // seconds
	if credit >= float64(math.MaxInt64/int64(time.Second))/2 {
		return deadline // past any now + idle
	}
	if byRate := start.Add(idle + time.Duration(credit*float64(time.Second))); byRate.Before(deadline) {
		return byRate
	}
	return deadline
}

func (b *boundedBody) Close() error { return b.body.Close() }
