package app

import (
	"context"
	"fmt"
	"net"

	"golang.org/x/sync/errgroup"

	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/events/webhook"
	"github.com/haulgraph/haulgraph/secretbox"
	"github.com/haulgraph/haulgraph/storage"
)

// webhookParts are the webhook management service and its background workers.
type webhookParts struct {
	Service *webhooks.Service
	// Destinations is Service for every destination type.
	Destinations *webhooks.Service
	Store        *storage.WebhookStore
	Worker       *webhook.Worker
	Dispatcher   *webhook.Dispatcher
}

// wireWebhooks builds the webhook service, dispatcher and delivery worker.
func (a *App) wireWebhooks() error {
	box, err := secretbox.New(a.Config.EncryptionKey)
	if err != nil {
		return err
	}
	store := storage.NewWebhookStore(a.DB, box)
	var resolver webhooks.HostResolver = net.DefaultResolver
	if a.Config.WebhookResolver != nil {
		resolver = a.Config.WebhookResolver
	}
	client := webhook.NewClient(webhook.ClientOptions{AllowLoopback: a.Config.DevAllowHTTPWebhooks, Resolver: a.Config.WebhookResolver})
	brokers := &webhook.Brokers{AllowLoopback: a.Config.DevAllowHTTPWebhooks}
	worker := &webhook.Worker{Store: store, Client: client, Brokers: brokers, AllowInsecure: a.Config.DevAllowHTTPWebhooks, Log: a.Log, Drain: a.Config.ShutdownTimeout,
		Attempted: a.Metrics.WebhookAttempt, Emitted: a.Config.EmittedEvent}
	if a.Tracing.On() {
		worker.Tracer = a.Tracing.Tracer
	}
	a.Webhooks = webhookParts{
		Store:  store,
		Worker: worker,
		Service: &webhooks.Service{Store: store, DeliveryLog: store, AllowInsecureURLs: a.Config.DevAllowHTTPWebhooks, Resolver: resolver,
			Challenger:   &webhook.Challenger{Client: client, AllowInsecure: a.Config.DevAllowHTTPWebhooks, Log: a.Log, Emitted: a.Config.EmittedEvent},
			Destinations: store, Prober: brokers},
		Dispatcher: &webhook.Dispatcher{Store: store, OnDispatched: worker.Wake, Log: a.Log},
	}
	all := *a.Webhooks.Service
	all.AllTypes = true
	a.Webhooks.Destinations = &all
	return nil
}

// runWebhooks runs the dispatcher and the delivery worker in g until ctx
// ends. The dispatcher wakes on the events relay's signal (one LISTEN per
// instance).
func (a *App) runWebhooks(ctx context.Context, g *errgroup.Group) {
	var stop func()
	if a.Events != nil && a.Events.Relay != nil {
		var wake <-chan struct{}
		wake, stop = a.Events.Relay.Wake()
		a.Webhooks.Dispatcher.Wake = wake
	}
	g.Go(func() error {
		if stop != nil {
			defer stop()
		}
		if err := a.Webhooks.Dispatcher.Run(ctx); err != nil {
			return fmt.Errorf("webhook dispatch: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		if err := a.Webhooks.Worker.Run(ctx); err != nil {
			return fmt.Errorf("webhook delivery: %w", err)
		}
		return nil
	})
}
