package transport

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/live"
	"github.com/haulgraph/haulgraph/httpedge"
)

// The two subprotocols served: graphql-transport-ws (graphql-ws library)
// and the legacy graphql-ws (subscriptions-transport-ws).
const (
	protoTransportWS = "graphql-transport-ws"
	protoLegacyWS    = "graphql-ws"
)

// WebSocket close codes: graphql-transport-ws's vocabulary, used for both
// subprotocols.
const (
	CloseInvalidMessage = 4400 // a message the protocol does not allow
	CloseUnauthorized   = 4401 // no, invalid or expired token; subscribe before connection_init
	CloseInitTimeout    = 4408 // no connection_init in time
	CloseDuplicateID    = 4409 // an operation id already in use
	CloseTooManyInits   = 4429 // a second connection_init; too many sockets of an address or client
	CloseSlowConsumer   = websocket.ClosePolicyViolation
)

// WebsocketOptions configure the GraphQL WebSocket transport.
type WebsocketOptions struct {
	// Verify checks a raw bearer token (auth.Service.VerifyToken).
	Verify func(ctx context.Context, raw string) (*domain.Principal, error)
	// Admit charges one operation to the caller's request-rate buckets (the
	// same as HTTP requests'); a refusal is a RATE_LIMITED domain error.
	// Nil admits everything.
	Admit func(ctx context.Context) error
	// Live runs shared subscription executions (Endpoint.Live).
	Live *live.Live
	// KeepAlive is the interval of WebSocket pings (and "ka" for
	// graphql-ws); default 15s. A peer silent for two intervals is dropped.
	KeepAlive time.Duration
	// InitTimeout is how long a connection may wait before connection_init
	// (default 10s; then 4408).
	InitTimeout time.Duration
	// AfterFunc schedules the end of a connection when its token expires and
	// returns what cancels it; nil is time.AfterFunc (tests fire it at once).
	AfterFunc func(d time.Duration, f func()) (stop func() bool)
	// WriteTimeout bounds one message write to a client; default 10s. A
	// client that does not read is cut off after it.
	WriteTimeout time.Duration
	// SendBuffer is each connection's kernel send buffer in bytes (default
	// 64 KiB).
	SendBuffer int
	// QueuePerOperation is how many messages each live operation of a
	// connection may have waiting to be written before the connection is cut
	// off as too slow (default 64).
	QueuePerOperation int
	// MaxSubscriptions bounds the live operations of one connection
	// (default 100).
	MaxSubscriptions int
	// MaxPerAddress bounds the sockets of one address that have not yet
	// been acknowledged (default 32); MaxPerClient the acknowledged sockets
	// of one client (default 100). Past either the socket is closed with
	// 4429.
	MaxPerAddress int
	MaxPerClient  int
	// CheckOrigin decides which browser origins may connect; nil accepts any
	// (the bearer token, not a cookie, authenticates).
	CheckOrigin func(r *http.Request) bool
	// Closing, when closed, ends every connection with 1001 Going Away (the
	// server is shutting down); nil never does.
	Closing <-chan struct{}
	// Opened is told of every upgraded connection and returns what to call
	// when it ends (metrics.Streams.Opened); nil counts nothing.
	Opened func() (ended func())
}

var writeBuffers = &sync.Pool{}

// WebsocketTransport serves GraphQL over WebSocket on gorilla/websocket,
// speaking graphql-transport-ws and the legacy graphql-ws. The bearer token
// comes in connection_init's payload (Authorization: "Bearer …") or in the
// upgrade request's header, is verified like an HTTP one, and the connection
// is closed with 4401 when it expires. Every operation is charged to the
// caller's rate limits and query-cost budget; subscriptions join Live's
// shared executions.
type WebsocketTransport struct {
	o        WebsocketOptions
	upgrader websocket.Upgrader
	limits   *wsLimits
}

// wsLimits count the open sockets of each address (before
// connection_init) and of each client (after).
type wsLimits struct{ address, client openCounts }

var _ graphql.Transport = WebsocketTransport{}

// NewWebsocket builds the transport.
func NewWebsocket(o WebsocketOptions) WebsocketTransport {
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.InitTimeout <= 0 {
		o.InitTimeout = 10 * time.Second
	}
	if o.AfterFunc == nil {
		o.AfterFunc = afterFunc
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = defaultWriteTimeout
	}
	if o.MaxSubscriptions <= 0 {
		o.MaxSubscriptions = 100
	}
	if o.MaxPerAddress <= 0 {
		o.MaxPerAddress = 32
	}
	if o.MaxPerClient <= 0 {
		o.MaxPerClient = 100
	}

	if o.QueuePerOperation <= 0 {
		o.QueuePerOperation = 64
	}
	if o.SendBuffer <= 0 {
		o.SendBuffer = defaultSendBuffer
	}
	if o.Live == nil {
		o.Live = live.New(nil, graphql.DefaultErrorPresenter, nil)
	}
	check := o.CheckOrigin
	if check == nil {
		check = func(*http.Request) bool { return true }
	}
	return WebsocketTransport{o: o, limits: &wsLimits{}, upgrader: websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		// ReadBufferSize 0 reuses the HTTP server's reader; write buffers
		// come from a pool and are held only while a message is written: an
		// idle subscription keeps none.
		WriteBufferSize: 4096, WriteBufferPool: writeBuffers,
		Subprotocols: []string{protoTransportWS, protoLegacyWS},
		CheckOrigin:  check,
	}}
}

// Supports reports a WebSocket upgrade.
func (t WebsocketTransport) Supports(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// Do upgrades (only to a subprotocol it speaks) and serves the connection
// until it ends.
func (t WebsocketTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	offered := websocket.Subprotocols(r)
	if !slices.Contains(offered, protoTransportWS) && !slices.Contains(offered, protoLegacyWS) {
		writeGraphQLError(w, r, http.StatusBadRequest,
			`unsupported WebSocket subprotocol: offer "graphql-transport-ws" (or the legacy "graphql-ws") in Sec-WebSocket-Protocol`,
			string(domain.CodeInvalid))
		return
	}
	// The place is taken before the upgrade is answered: a client whose
	// upgrade succeeded holds it.
	unaddress, ok := t.limits.address.take(httpedge.ClientHost(r), t.o.MaxPerAddress)
	c, err := t.upgrader.Upgrade(w, r, nil)
	if err != nil {
		if ok {
			unaddress()
		}
		return // the upgrader has answered
	}
	if !ok {
		// Refused before anything is read: the close is the only answer.
		_ = c.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(CloseTooManyInits,
			"Too many WebSockets: at most "+strconv.Itoa(t.o.MaxPerAddress)+" per address before connection_init"), time.Now().Add(time.Second))
		_ = c.Close()
		return
	}
	if t.o.Opened != nil {
		defer t.o.Opened()()
	}
	newWSConn(t.o, c, exec, r.Context(), t.limits, unaddress).serve()
}

// principal verifies connection_init's token, or accepts the one the upgrade
// request carried in its Authorization header (already verified by the auth
// middleware).
func (o WebsocketOptions) principal(ctx context.Context, payload map[string]any) (*domain.Principal, error) {
	h, _ := payload["Authorization"].(string)
	if h == "" {
		h, _ = payload["authorization"].(string)
	}
	if h == "" {
		if p := domain.PrincipalFrom(ctx); p != nil && p.ExpiresAt.After(time.Now()) {
			return p, nil
		}
		return nil, errors.New(`connection_init needs the payload {"Authorization": "Bearer <token>"}`)
	}
	scheme, raw, ok := strings.Cut(strings.TrimSpace(h), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(raw) == "" {
		return nil, errors.New(`malformed Authorization: expected "Bearer <token>"`)
	}
	if o.Verify == nil {
		return nil, errors.New("token verification is not configured")
	}
	p, err := o.Verify(ctx, strings.TrimSpace(raw))
	if err != nil {
		return nil, errors.New("the bearer token was refused")
	}
	return p, nil
}

// truncateReason keeps a close reason within RFC 6455's 123 bytes, cut on
// a rune boundary: the reason must be valid UTF-8 on the wire.
func truncateReason(s string) string {
	if len(s) <= 123 {
		return s
	}
	n := 123
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
