package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// Brokers publishes the deliveries of broker destinations, over one
// connection per destination kept between attempts, and probes a broker
// when a destination is created or enabled (webhooks.Prober). Every address
// it dials passes the webhook address rules, on connect and reconnect.
type Brokers struct {
	// AllowLoopback is the development flag: loopback brokers (and plain
	// nats:// and amqp://) may be reached.
	AllowLoopback bool
	// RootCAs overrides the system roots (tests trust their broker).
	RootCAs *x509.CertPool
	// ConnectTimeout bounds a dial with its handshake; zero is
	// connectTimeout.
	ConnectTimeout time.Duration

	mu    sync.Mutex
	conns map[uuid.UUID]*cachedConn
}

// cachedConn is a destination's connection, or its dial while ready is
// open, and when an attempt last took it: one unused for brokerIdle (a
// deleted or disabled destination's) is closed by CloseIdle.
type cachedConn struct {
	ready chan struct{} // closed when the dial has ended
	conn  brokerConn    // set with err before ready is closed
	err   error
	used  time.Time
}

const brokerIdle = 10 * time.Minute

var _ webhooks.Prober = (*Brokers)(nil)

// brokerConn is one destination's open connection.
type brokerConn interface {
	publish(ctx context.Context, m brokerMessage) error
	// broken reports that the connection is gone and must be redialed.
	broken() bool
	close()
}

// brokerMessage is one event as published: body, headers, and where.
type brokerMessage struct {
	ID, Type string
	Body     []byte
	Header   http.Header
	// Subject is the NATS subject, RoutingKey and Exchange the AMQP route.
	Subject, Exchange, RoutingKey string
	At                            time.Time
}

// Failures a tenant reads in its delivery log. A connection that fails
// reads the same whatever the cause, as a webhook without an answer does.
const (
	NoBroker       = "publish failed: no connection to the broker"
	NotAcked       = "publish failed: the broker did not acknowledge the message in time"
	BrokerBlocked  = "publish paused: the broker blocked the connection (resource alarm)"
	NoStream       = "publish failed: no JetStream stream captures the subject"
	brokerRefused  = "the broker refused the credentials"
	connectTimeout = 5 * time.Second
)

// channelOf is the AsyncAPI channel a destination type's events leave by.
func channelOf(t webhooks.Type) string {
	switch t {
	case webhooks.TypeNATSJetStream:
		return eventschema.ChannelNATS
	case webhooks.TypeRabbitMQ:
		return eventschema.ChannelRabbitMQ
	}
	return eventschema.ChannelWebhook
}

// Publish sends one claimed delivery of a broker destination with its
// rendered body and headers, and waits (within ctx) for the broker's
// acknowledgement. Any error is a failed attempt.
func (b *Brokers) Publish(ctx context.Context, c webhooks.ClaimedDelivery, body []byte, h http.Header, at time.Time) error {
	t := c.Target
	m := brokerMessage{ID: c.EventID, Type: c.EventType, Body: body, Header: h, At: at, Exchange: t.Broker.Exchange,
		Subject:    webhooks.Subject(t.Broker.SubjectPrefix, t.TenantSlug, c.EventType, c.Load),
		RoutingKey: webhooks.RoutingKey(t.Broker.RoutingKey, t.TenantSlug, c.EventType, c.Load)}
	conn, err := b.conn(ctx, c.WebhookID, t)
	if err != nil {
		return noBroker{err}
	}
	err = conn.publish(ctx, m)
	if err != nil && conn.broken() {
		b.drop(c.WebhookID, conn)
	}
	return err
}

// conn is the destination's open connection, dialed when there is none.
// The map's lock is held only to look up: one destination's dial (up to
// the connect timeout) delays no other's publish. Attempts in flight to one
// destination share its dial and its outcome; a failed dial is not kept.
func (b *Brokers) conn(ctx context.Context, id uuid.UUID, t webhooks.Target) (brokerConn, error) {
	b.mu.Lock()
	c, ok := b.conns[id]
	if ok {
		select {
		case <-c.ready:
			if c.err == nil && !c.conn.broken() {
				c.used = time.Now()
				b.mu.Unlock()
				return c.conn, nil
			}
		default: // being dialed
			b.mu.Unlock()
			select {
			case <-c.ready:
				return c.conn, c.err
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	c = &cachedConn{ready: make(chan struct{})}
	if b.conns == nil {
		b.conns = map[uuid.UUID]*cachedConn{}
	}
	b.conns[id] = c
	b.mu.Unlock()

	conn, err := b.dial(ctx, t)
	b.mu.Lock()
	c.conn, c.err, c.used = conn, err, time.Now()
	if err != nil && b.conns[id] == c {
		delete(b.conns, id)
	}
	close(c.ready)
	b.mu.Unlock()
	return conn, err
}

func (b *Brokers) dial(ctx context.Context, t webhooks.Target) (brokerConn, error) {
	switch t.Type {
	case webhooks.TypeNATSJetStream:
		return b.dialNATS(ctx, t)
	case webhooks.TypeRabbitMQ:
		return b.dialAMQP(ctx, t)
	}
	return nil, fmt.Errorf("no sender for destination type %q", t.Type)
}

func (b *Brokers) drop(id uuid.UUID, c brokerConn) {
	b.mu.Lock()
	if cached, ok := b.conns[id]; ok && cached.conn == c {
		delete(b.conns, id)
	}
	b.mu.Unlock()
	c.close()
}

// Close closes every connection (the worker's end, once no attempt is in
// flight).
func (b *Brokers) Close() {
	b.mu.Lock()
	conns := b.conns
	b.conns = nil
	b.mu.Unlock()
	closeDialed(conns)
}

// CloseIdle closes the connections no attempt took for brokerIdle: a
// deleted or disabled destination's (the worker runs it now and then).
func (b *Brokers) CloseIdle() {
	idle := map[uuid.UUID]*cachedConn{}
	now := time.Now()
	b.mu.Lock()
	for id, c := range b.conns {
		select {
		case <-c.ready:
			if now.Sub(c.used) > brokerIdle {
				idle[id] = c
				delete(b.conns, id)
			}
		default: // being dialed: just used
		}
	}
	b.mu.Unlock()
	closeDialed(idle) // unlocked: closing waits for the broker
}

// closeDialed closes the connections of conns whose dial has ended.
func closeDialed(conns map[uuid.UUID]*cachedConn) {
	for _, c := range conns {
		select {
		case <-c.ready:
			if c.err == nil {
				c.conn.close()
			}
		default:
		}
	}
}

// Probe connects to t's broker once and checks what the credentials let it
// see: the stream of the subjects (JetStream) or the exchange (RabbitMQ).
func (b *Brokers) Probe(ctx context.Context, t webhooks.Target) error {
	switch t.Type {
	case webhooks.TypeNATSJetStream:
		return b.probeNATS(ctx, t)
	case webhooks.TypeRabbitMQ:
		return b.probeAMQP(ctx, t)
	}
	return fmt.Errorf("no prober for destination type %q", t.Type)
}

// tlsConfig is every broker connection's TLS: 1.2 or higher, the host's
// name verified.
func (b *Brokers) tlsConfig(host string) *tls.Config {
	return &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: b.RootCAs, ServerName: host}
}

// dialGuarded dials address with the webhook address rules, bounded by
// connectTimeout (the broker clients' dial functions take no context).
func (b *Brokers) dialGuarded(network, address string) (net.Conn, error) {
	d := guardedDialer(b.AllowLoopback)
	d.Timeout = b.connectTimeout()
	c, err := d.Dial(network, address)
	if err != nil {
		return nil, err
	}
	// The handshake is bounded too; the clients clear the deadline once
	// connected.
	_ = c.SetDeadline(time.Now().Add(b.connectTimeout()))
	return c, nil
}

func (b *Brokers) connectTimeout() time.Duration {
	if b.ConnectTimeout > 0 {
		return b.ConnectTimeout
	}
	return connectTimeout
}

// brokerHeaders are h's names in lower case (Standard Webhooks spells its
// headers so; brokers, unlike HTTP, compare names exactly).
func brokerHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, v := range h {
		if len(v) > 0 {
			out[strings.ToLower(k)] = v[0]
		}
	}
	return out
}

// noBroker reports a publish without a connection as NoBroker, for the
// reason noAnswer does; errors.Is and errors.As still see the cause.
type noBroker struct{ cause error }

func (noBroker) Error() string   { return NoBroker }
func (e noBroker) Unwrap() error { return e.cause }
