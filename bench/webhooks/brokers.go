package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	amqp "github.com/rabbitmq/amqp091-go"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/brokertest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// brokerDestination starts a broker of type to, a consumer recording every
// message's arrival into rcv (its Standard Webhooks signature verified),
// and an Active destination publishing to it; stop ends them.
func brokerDestination(ctx context.Context, a *app.App, to webhooks.Type, sub uuid.UUID, rcv *receiver) (stop func(), err error) {
	dir, err := os.MkdirTemp("", "bench-broker-")
	if err != nil {
		return nil, err
	}
	var p *brokertest.Process
	if to == webhooks.TypeNATSJetStream {
		p, err = brokertest.NATS(dir)
	} else {
		p, err = brokertest.RabbitMQ(dir)
	}
	if err == nil {
		err = p.Start(2 * time.Minute)
	}
	if err != nil {
		return nil, err
	}
	var closers []func()
	stop = func() {
		for i := len(closers) - 1; i >= 0; i-- {
			closers[i]()
		}
		p.Close()
		_ = os.RemoveAll(dir)
	}
	in := webhooks.Input{Type: &to, EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub}
	var consume func(verify func([]byte, http.Header) bool) error
	if to == webhooks.TypeNATSJetStream {
		url := "nats://" + p.Addr
		in.URL, in.Broker = &url, &webhooks.Broker{SubjectPrefix: "bench"}
		nc, err := nats.Connect(url)
		if err != nil {
			stop()
			return nil, err
		}
		closers = append(closers, nc.Close)
		js, _ := jetstream.New(nc)
		s, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "BENCH", Subjects: []string{"bench.>"}})
		if err != nil {
			stop()
			return nil, err
		}
		consume = func(verify func([]byte, http.Header) bool) error {
			cons, err := s.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
			if err != nil {
				return err
			}
			cc, err := cons.Consume(func(m jetstream.Msg) {
				h := http.Header{}
				for k, v := range m.Headers() {
					h[http.CanonicalHeaderKey(k)] = v
				}
				record(rcv, h.Get("Nats-Msg-Id"), verify(m.Data(), h))
			})
			if err == nil {
				closers = append(closers, cc.Stop)
			}
			return err
		}
	} else {
		url := "amqp://guest:guest@" + p.Addr + "/"
		in.URL, in.Broker = &url, &webhooks.Broker{Exchange: "bench"}
		conn, err := amqp.Dial(url)
		if err != nil {
			stop()
			return nil, err
		}
		closers = append(closers, func() { _ = conn.Close() })
		ch, err := conn.Channel()
		if err == nil {
			err = ch.ExchangeDeclare("bench", amqp.ExchangeTopic, true, false, false, false, nil)
		}
		if err == nil {
			_, err = ch.QueueDeclare("bench", true, false, false, false, nil)
		}
		if err == nil {
			err = ch.QueueBind("bench", "#", "bench", false, nil)
		}
		if err != nil {
			stop()
			return nil, err
		}
		consume = func(verify func([]byte, http.Header) bool) error {
			msgs, err := ch.Consume("bench", "", true, false, false, false, nil)
			if err != nil {
				return err
			}
			done := make(chan struct{})
			closers = append(closers, func() { _ = conn.Close(); <-done })
			go func() { // ends when the connection closes (stop)
				defer close(done)
				for d := range msgs {
					h := http.Header{}
					for k, v := range d.Headers {
						if s, ok := v.(string); ok {
							h.Set(k, s)
						}
					}
					record(rcv, d.MessageId, verify(d.Body, h))
				}
			}()
			return nil
		}
	}
	name := "bench"
	in.Name = &name
	_, secret, err := a.Webhooks.Destinations.Create(ctx, in)
	if err != nil {
		stop()
		return nil, err
	}
	wh, err := standardwebhooks.NewWebhook(secret)
	if err == nil {
		err = consume(func(body []byte, h http.Header) bool { return wh.Verify(body, h) == nil })
	}
	if err != nil {
		stop()
		return nil, fmt.Errorf("consumer: %w", err)
	}
	return stop, nil
}

// record is one message's arrival at the consumer.
func record(rcv *receiver, id string, verified bool) {
	now := time.Now()
	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	if !verified {
		rcv.badSig++
	}
	rcv.arrive(id, now)
}
