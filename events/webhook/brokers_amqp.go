package webhook

import (
	"context"
	"errors"
	"net/url"
	"sync"

	amqp "github.com/rabbitmq/amqp091-go"

	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// amqpConn is a RabbitMQ destination's connection and its one channel, in
// confirm mode. Publishes on it take turns: a message the broker returns is
// known to be the one just published.
type amqpConn struct {
	mu      sync.Mutex
	conn    *amqp.Connection
	ch      *amqp.Channel
	returns chan amqp.Return
	blocks  chan amqp.Blocking
	blocked bool
}

// dialAMQP opens a connection (through the address rules) and a channel in
// confirm mode, listening for returned messages and connection.blocked.
func (b *Brokers) dialAMQP(_ context.Context, t webhooks.Target) (*amqpConn, error) {
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, err
	}
	cfg := amqp.Config{Dial: b.dialGuarded, SASL: []amqp.Authentication{&amqp.PlainAuth{Username: t.Credentials.Username, Password: t.Credentials.Password}}}
	if u.Scheme == "amqps" {
		cfg.TLSClientConfig = b.tlsConfig(u.Hostname())
	}
	conn, err := amqp.DialConfig(t.URL, cfg)
	if err != nil {
		return nil, err
	}
	ch, err := conn.Channel()
	if err == nil {
		err = ch.Confirm(false)
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	// Buffered: the client's reader hands them over without waiting; each
	// publish drains them.
	c := &amqpConn{conn: conn, ch: ch, returns: make(chan amqp.Return, 8), blocks: make(chan amqp.Blocking, 8)}
	ch.NotifyReturn(c.returns)
	conn.NotifyBlocked(c.blocks)
	return c, nil
}

// publish sends m persistent and mandatory, message_id = the event id, and
// waits within ctx for the broker's confirm. A message the broker returns
// (no queue bound for its routing key), nacks or does not confirm in time is
// an error: a failed attempt, retried, never a silent loss. While the
// broker has blocked the connection nothing is published.
func (c *amqpConn) publish(ctx context.Context, m brokerMessage) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.drainBlocks()
	if c.blocked {
		return errors.New(BrokerBlocked)
	}
	headers := amqp.Table{}
	for k, v := range brokerHeaders(m.Header) {
		headers[k] = v
	}
	dc, err := c.ch.PublishWithDeferredConfirmWithContext(ctx, m.Exchange, m.RoutingKey, true, false, amqp.Publishing{
		Headers: headers, ContentType: m.Header.Get("Content-Type"), DeliveryMode: amqp.Persistent,
		MessageId: m.ID, Type: m.Type, Timestamp: m.At, Body: m.Body,
	})
	if err != nil {
		return c.failed(err)
	}
	acked, err := dc.WaitContext(ctx)
	// A return comes before the confirm of its message (the client hands
	// it over before it reads the confirm).
	for {
		select {
		case r := <-c.returns:
			if r.MessageId == m.ID {
				return errors.New("publish failed: the broker returned the message as unroutable (" + r.ReplyText + "): no queue is bound for routing key " + m.RoutingKey)
			}
			continue
		default:
		}
		break
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return errors.New(NotAcked)
	case err != nil:
		return c.failed(err)
	case !acked:
		return errors.New("publish failed: the broker refused the message (nack)")
	}
	return nil
}

// failed names a publish error: a closed channel says why the broker
// closed it (a missing exchange, a permission), anything else is no
// connection.
func (c *amqpConn) failed(err error) error {
	var ae *amqp.Error
	if errors.As(err, &ae) && ae.Code != 0 && ae.Code != amqp.ChannelError && ae.Code != amqp.FrameError {
		return errors.New("publish failed: the broker closed the channel: " + ae.Reason)
	}
	return noBroker{err}
}

// drainBlocks takes in the connection.blocked and unblocked the broker sent.
func (c *amqpConn) drainBlocks() {
	for {
		select {
		case b := <-c.blocks:
			c.blocked = b.Active
		default:
			return
		}
	}
}

func (c *amqpConn) broken() bool { return c.conn.IsClosed() || c.ch.IsClosed() }
func (c *amqpConn) close()       { _ = c.conn.Close() }

// probeAMQP connects once and checks the exchange exists (passively: it is
// never created).
func (b *Brokers) probeAMQP(ctx context.Context, t webhooks.Target) error {
	c, err := b.dialAMQP(ctx, t)
	var ae *amqp.Error
	switch {
	case errors.Is(err, amqp.ErrCredentials), errors.As(err, &ae) && ae.Code == amqp.AccessRefused:
		return &webhooks.ProbeError{Field: "credentials", Message: brokerRefused}
	case errors.Is(err, amqp.ErrVhost), errors.As(err, &ae) && ae.Code == amqp.NotAllowed:
		return &webhooks.ProbeError{Field: "url", Message: "the broker has no such virtual host, or the credentials may not use it"}
	case err != nil:
		return err
	}
	defer c.close()
	err = c.ch.ExchangeDeclarePassive(t.Broker.Exchange, amqp.ExchangeTopic, true, false, false, false, nil)
	switch {
	case errors.As(err, &ae) && ae.Code == amqp.NotFound:
		return &webhooks.ProbeError{Field: "exchange", Message: "the exchange " + t.Broker.Exchange + " does not exist"}
	case errors.As(err, &ae) && ae.Code == amqp.AccessRefused:
		return &webhooks.ProbeError{Field: "credentials", Message: "the credentials may not use the exchange " + t.Broker.Exchange}
	}
	return err
}
