package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"strconv"
	"time"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/domain"
)

// read is the connection's reader: it reads messages until the peer or
// the writer ends the connection, and runs each.
func (w *wsConn) read() {
	w.c.SetReadLimit(64 << 10)
	w.alive()
	w.c.SetPongHandler(func(string) error { w.alive(); return nil })
	// Every frame is written by the writer: the answers gorilla would write
	// from this goroutine are queued instead — a pong (within the queue's
	// bound: a peer that pings without reading is a slow consumer), and the
	// close frame echoing the peer's code. A ping is a control frame of
	// RFC 6455, below either subprotocol: answered at any time, before
	// connection_init too, and never a reason to close.
	w.c.SetPingHandler(func(data string) error {
		w.out.send(wsFrame{body: []byte(data), opcode: websocket.PongMessage})
		return nil
	})
	w.c.SetCloseHandler(func(code int, _ string) error {
		w.end(code, "")
		return nil
	})
	for {
		_, data, err := w.c.ReadMessage()
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			// No answer to pings: a client too far behind to read is cut
			// off like a slow consumer (1008, resume with after:), not
			// closed as gone (1000), which would hide the events it missed.
			w.end(websocket.ClosePolicyViolation, "no answer to pings: reconnect and resume with after")
			return
		}
		if err != nil {
			return
		}
		w.alive()
		if !w.handle(data) {
			return
		}
	}
}

// alive pushes the read deadline: a peer that answers neither pings nor
// sends anything for two keep-alive intervals is gone.
func (w *wsConn) alive() { _ = w.c.SetReadDeadline(time.Now().Add(2*w.o.KeepAlive + w.o.WriteTimeout)) }

// wsMessage is a message of either subprotocol.
type wsMessage struct {
	ID      *string         `json:"id"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload"`
}

// wsKind is what a client message is to the connection, by its type.
type wsKind int

const (
	wsUnknown   wsKind = iota // no message of the subprotocol: close 4400
	wsInit                    // connection_init
	wsPing                    // graphql-transport-ws ping: answer pong
	wsPong                    // graphql-transport-ws pong: nothing to do
	wsStart                   // subscribe / start
	wsStop                    // complete / stop
	wsTerminate               // graphql-ws connection_terminate: close 1000
)

// wsKindOf classifies a message type of the subprotocol (legacy:
// graphql-ws). Only connection_init, connection_terminate, ping and pong
// may come before the connection is acknowledged; the rest of the
// subprotocol's messages then close it with 4401, and unknown types always
// with 4400.
func wsKindOf(legacy bool, typ string) wsKind {
	switch {
	case typ == "connection_init":
		return wsInit
	case !legacy && typ == "ping":
		return wsPing
	case !legacy && typ == "pong":
		return wsPong
	case !legacy && typ == "subscribe", legacy && typ == "start":
		return wsStart
	case !legacy && typ == "complete", legacy && typ == "stop":
		return wsStop
	case legacy && typ == "connection_terminate":
		return wsTerminate
	}
	return wsUnknown
}

// handle runs one client message; false ends the connection. Nothing but
// connection_init and ping is answered before the connection is acknowledged, and
// no message is answered with more than the protocol asks: what is out of
// turn or unknown closes the connection instead.
func (w *wsConn) handle(data []byte) bool {
	var m wsMessage
	if err := json.Unmarshal(data, &m); err != nil || m.Type == "" {
		w.end(CloseInvalidMessage, "Invalid message received")
		return false
	}
	kind := wsKindOf(w.legacy, m.Type)
	switch {
	case kind == wsUnknown:
		w.end(CloseInvalidMessage, "Invalid message received: unknown type "+strconv.Quote(truncateReason(m.Type)))
		return false
	case kind == wsInit:
		return w.init(m.Payload)
	case kind == wsTerminate:
		w.end(websocket.CloseNormalClosure, "")
		return false
	case kind == wsPing || kind == wsPong:
		// graphql-transport-ws allows both at any time, before
		// connection_init too; the pong is queued like every other frame.
	case !w.acked.Load():
		w.end(CloseUnauthorized, "Unauthorized: send connection_init first")
		return false
	}
	switch kind {
	case wsPing:
		w.out.sendJSON(map[string]any{"type": "pong"})
	case wsStart:
		if m.ID == nil || *m.ID == "" {
			w.end(CloseInvalidMessage, "Invalid message received: an operation needs an id")
			return false
		}
		return w.start(*m.ID, m.Payload)
	case wsStop:
		if m.ID == nil {
			w.end(CloseInvalidMessage, "Invalid message received: "+m.Type+" needs an id")
			return false
		}
		w.stop(*m.ID)
		if w.legacy {
			w.out.sendJSON(map[string]any{"type": "complete", "id": *m.ID})
		}
	}
	return true
}

func (w *wsConn) init(payload json.RawMessage) bool {
	if w.inited.Swap(true) {
		w.end(CloseTooManyInits, "Too many initialisation requests")
		return false
	}
	var fields map[string]any
	if len(bytes.TrimSpace(payload)) > 0 && string(bytes.TrimSpace(payload)) != "null" {
		if err := json.Unmarshal(payload, &fields); err != nil {
			w.end(CloseInvalidMessage, "Invalid message received: connection_init's payload must be an object")
			return false
		}
	}
	p, err := w.o.principal(w.ctx, fields)
	if err != nil {
		w.end(CloseUnauthorized, "Unauthorized: "+err.Error())
		return false
	}
	// Past connection_init the socket counts against its client, no longer
	// against its address.
	unclient, ok := w.limits.client.take(p.TenantID.String()+" "+p.ClientID, w.o.MaxPerClient)
	if !ok {
		w.end(CloseTooManyInits, "Too many WebSockets: at most "+strconv.Itoa(w.o.MaxPerClient)+" per client on this server")
		return false
	}
	w.unclient = unclient
	w.unaddress()
	w.ctx = domain.WithPrincipal(w.ctx, p)
	if !p.ExpiresAt.IsZero() {
		// The connection ends when the token does.
		stop := w.o.AfterFunc(time.Until(p.ExpiresAt), func() { w.end(CloseUnauthorized, "Unauthorized: the token expired") })
		context.AfterFunc(w.ctx, func() { stop() })
	}
	w.acked.Store(true)
	w.out.sendJSON(map[string]any{"type": "connection_ack"})
	if w.legacy {
		w.out.ka.Store(true)
		w.out.sendJSON(map[string]any{"type": "ka"})
	}
	return true
}
