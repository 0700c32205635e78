package app

import (
	"context"
	"fmt"

	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/events"
	"github.com/haulgraph/haulgraph/graph/transport"
	"github.com/haulgraph/haulgraph/httpedge"
	"github.com/haulgraph/haulgraph/secretbox"
	"github.com/haulgraph/haulgraph/storage"
)

// Events is this instance's part of the event bus: load and trip writes
// (which commit their events to the outbox), the relay tailing the outbox,
// and the hub of live subscriptions.
type Events struct {
	LoadWrites    *loads.Writes
	Subscriptions *eventlog.Subscriptions
	Hub           *events.Hub
	// Relay.Wake() wakes durable consumers (webhook delivery) on new events.
	Relay *events.Relay
	// Log is the events API (REST and GraphQL), whose cursors are sealed
	// with the same key as the subscriptions'.
	Log *eventlog.Log
}

// wireEvents builds the bus and positions the relay at the outbox head before
// the instance serves, so every write accepted afterwards reaches its hub.
func (a *App) wireEvents(ctx context.Context) error {
	hub := events.NewHub()
	relay := &events.Relay{Outbox: &storage.Outbox{DB: a.DB}, Hub: hub, Log: a.Log, Retry: a.Config.EventRelayRetry}
	if a.Tracing.On() {
		relay.Tracer = a.Tracing.Tracer
	}
	if err := relay.Position(ctx); err != nil {
		return err
	}
	// The key is valid here: auth.New has refused one that does not decode.
	master, err := secretbox.DecodeKey(a.Config.EncryptionKey)
	if err != nil {
		return fmt.Errorf("HAULGRAPH_ENCRYPTION_KEY: %w", err)
	}
	cursors := eventlog.NewCursors(secretbox.Derive(master, secretbox.EventCursorsLabel))
	a.Events = &Events{
		LoadWrites: &loads.Writes{Store: &storage.LoadWrites{DB: a.DB}},
		Subscriptions: &eventlog.Subscriptions{Stream: hub, Log: &storage.EventLog{DB: a.DB}, Buffer: a.Config.SubscriberBuffer,
			Cursors: cursors},
		Hub:   hub,
		Relay: relay,
		Log:   &eventlog.Log{Store: &storage.EventLog{DB: a.DB}, Cursors: cursors},
	}
	return nil
}

// websocketTransport is GraphQL's WebSocket transport (subscriptions), whose
// connection_init tokens are verified like HTTP ones and whose every
// operation spends from the same rate-limit buckets as an HTTP request.
func (a *App) websocketTransport(limits *httpedge.RateLimits) transport.WebsocketTransport {
	return transport.NewWebsocket(transport.WebsocketOptions{
		Verify:            a.Auth.VerifyToken,
		Admit:             limits.AdmitOperation,
		Live:              a.GraphQL.Live,
		QueuePerOperation: a.Config.SubscriberBuffer,
		InitTimeout:       a.Config.WebsocketInitTimeout,
		WriteTimeout:      a.Config.StreamWriteTimeout,
		MaxPerAddress:     a.Config.WebsocketMaxPerAddress,
		MaxPerClient:      a.Config.WebsocketMaxPerClient,
		KeepAlive:         a.Config.WebsocketKeepAlive,
		AfterFunc:         a.Config.TokenExpiryTimer,
		Closing:           a.closing,
		Opened:            a.Metrics.WebSocket().Opened,
	})
}
