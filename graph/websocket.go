package graph

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/domain"
)

// WebSocket close codes (graphql-transport-ws's vocabulary, used for both
// subprotocols).
const (
	CloseUnauthorized = 4401 // no, invalid or expired token
	CloseForbidden    = 4403 // the token lacks the operation's scope
	CloseSlowConsumer = websocket.ClosePolicyViolation
)

// WebsocketOptions configure the GraphQL WebSocket transport.
type WebsocketOptions struct {
	// Verify checks a raw bearer token (auth.Service.VerifyToken).
	Verify func(ctx context.Context, raw string) (*domain.Principal, error)
	// KeepAlive is the interval of server pings ("ka" for graphql-ws, "ping"
	// for graphql-transport-ws); default 15s.
	KeepAlive time.Duration
	// WriteTimeout bounds one message write to a client; default 10s.
	WriteTimeout time.Duration
	// SendBuffer is each connection's kernel send buffer in bytes (default
	// 64 KiB): with the hub's bounded queue, what one subscriber may hold.
	SendBuffer int
	// MaxSubscriptions bounds the live subscriptions of one connection
	// (default 100).
	MaxSubscriptions int
	// CheckOrigin decides which browser origins may connect; nil accepts any
	// (the bearer token, not a cookie, authenticates).
	CheckOrigin func(r *http.Request) bool
}

var writeBuffers = &sync.Pool{}

// WebsocketTransport is gqlgen's WebSocket transport on gorilla/websocket,
// speaking graphql-transport-ws and the legacy graphql-ws. The bearer token
// comes in connection_init's payload (Authorization: "Bearer …"), is verified
// like an HTTP one, and the connection is closed with 4401 when it expires.
type WebsocketTransport struct{ transport.Websocket }

// NewWebsocket builds the transport.
func NewWebsocket(o WebsocketOptions) WebsocketTransport {
	if o.KeepAlive <= 0 {
		o.KeepAlive = 15 * time.Second
	}
	if o.WriteTimeout <= 0 {
		o.WriteTimeout = 10 * time.Second
	}
	if o.MaxSubscriptions <= 0 {
		o.MaxSubscriptions = 100
	}
	if o.SendBuffer <= 0 {
		o.SendBuffer = 64 << 10
	}
	check := o.CheckOrigin
	if check == nil {
		check = func(*http.Request) bool { return true }
	}
	limit := int64(64 << 10)
	return WebsocketTransport{transport.Websocket{
		Implementation: gorillaWebsocket{
			// Write buffers come from a pool and are held only while a message
			// is written: an idle subscription keeps none.
			upgrader: websocket.Upgrader{HandshakeTimeout: 10 * time.Second, WriteBufferSize: 4096,
				WriteBufferPool: writeBuffers, CheckOrigin: check},
			writeTimeout: o.WriteTimeout,
			sendBuffer:   o.SendBuffer,
		},
		InitFunc:              o.init,
		InitTimeout:           10 * time.Second,
		KeepAlivePingInterval: o.KeepAlive,
		PingPongInterval:      o.KeepAlive,
		PayloadReadLimit:      &limit,
	}}
}

// Do gives the connection a slot in the request context, so that the init
// function can reach the connection it authenticates.
func (t WebsocketTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	ctx := context.WithValue(r.Context(), connSlotKey{}, &connSlot{})
	t.Websocket.Do(w, r.WithContext(ctx), exec)
}

func (o WebsocketOptions) init(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	slot, _ := ctx.Value(connSlotKey{}).(*connSlot)
	if slot == nil || slot.conn == nil {
		return ctx, nil, errors.New("internal: connection not registered")
	}
	conn := slot.conn
	p, err := o.principal(ctx, payload)
	if err != nil {
		ctx = transport.WithWebsocketCloseCode(ctx, CloseUnauthorized)
		return transport.AppendCloseReason(ctx, truncateReason("Unauthorized: "+err.Error())), nil, err
	}
	ctx = domain.WithPrincipal(ctx, p)
	ctx = domain.WithDisconnect(ctx, func(reason error) { conn.end(closeFor(reason)) })
	ctx = domain.WithStreamQuota(ctx, o.MaxSubscriptions)
	if !p.ExpiresAt.IsZero() {
		// Re-checked at expiry: the connection ends when the token does.
		timer := time.AfterFunc(time.Until(p.ExpiresAt), func() { conn.end(CloseUnauthorized, "Unauthorized: the token expired") })
		context.AfterFunc(ctx, func() { timer.Stop() })
	}
	return ctx, nil, nil
}

// principal verifies connection_init's token, or accepts the one the upgrade
// request carried in its Authorization header (already verified by the auth
// middleware).
func (o WebsocketOptions) principal(ctx context.Context, payload transport.InitPayload) (*domain.Principal, error) {
	h := payload.Authorization()
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

// closeFor maps why a connection must end to its close code.
func closeFor(reason error) (int, string) {
	switch {
	case errors.Is(reason, domain.ErrSlowConsumer):
		return CloseSlowConsumer, reason.Error()
	case domain.CodeOf(reason) == domain.CodeForbidden:
		return CloseForbidden, truncateReason("Forbidden: " + reason.Error())
	case domain.CodeOf(reason) == domain.CodeUnauthenticated:
		return CloseUnauthorized, truncateReason("Unauthorized: " + reason.Error())
	}
	return websocket.CloseInternalServerErr, "internal error"
}
