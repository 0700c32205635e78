package webhook

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// A destination whose broker accepts the connection and never answers
// holds its own dial alone: meanwhile another destination's event is
// published.
func TestHangingBrokerDelaysNoOtherDestination(t *testing.T) {
	t.Parallel()
	addr := sharedBroker(t, "nats").Addr
	p := prefix()
	stream := natsStream(t, addr, nil, p+".>")
	hang, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	accepted := make(chan net.Conn, 1)
	wg.Add(1)
	go func() { // accepts the one connection and never writes to it
		defer wg.Done()
		if c, err := hang.Accept(); err == nil {
			accepted <- c
		}
	}()
	// The dial is held as long as the server says nothing.
	b := &Brokers{AllowLoopback: true, ConnectTimeout: time.Hour}
	publish := func(url string) <-chan error {
		out := make(chan error, 1)
		c := webhooks.ClaimedDelivery{WebhookID: uuid.New(), EventID: uuid.NewString(), EventType: domain.EventLoadChanged,
			Type: webhooks.TypeNATSJetStream, Load: "L1", Target: webhooks.Target{Type: webhooks.TypeNATSJetStream,
				URL: url, Broker: webhooks.Broker{SubjectPrefix: p}, TenantSlug: "acme"}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			out <- b.Publish(context.Background(), c, []byte(`{}`), http.Header{}, time.Now())
		}()
		return out
	}
	hanging := publish("nats://" + hang.Addr().String())
	var held net.Conn
	t.Cleanup(func() { // releases the hanging dial, then waits for everything
		hang.Close()
		if held != nil {
			held.Close()
		}
		wg.Wait()
		b.Close()
	})
	select {
	case held = <-accepted:
	case <-time.After(10 * time.Second):
		t.Fatal("the hanging broker was never dialed")
	}

	select {
	case err := <-publish("nats://" + addr):
		if err != nil {
			t.Fatalf("healthy destination: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the healthy destination's publish waits behind the hanging dial")
	}
	select {
	case err := <-hanging:
		t.Fatalf("the hanging dial ended: %v", err)
	default:
	}
	if n := len(streamMessages(t, stream)); n != 1 {
		t.Fatalf("%d messages on the healthy stream", n)
	}
	held.Close()
	if err := <-hanging; err == nil || err.Error() != NoBroker {
		t.Fatalf("publish to the hanging broker: %v", err)
	}
}
