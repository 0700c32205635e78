// Package resolvers holds the GraphQL resolvers: thin functions that convert
// arguments and call domain services.
package resolvers

import (
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// Resolver is the root resolver; its fields are the domain services.
type Resolver struct {
	Reads          *reads.Service
	Documents      *documents.Service
	LoadWrites     *loads.Writes
	Subscriptions  *eventlog.Subscriptions
	WebhookService *webhooks.Service
	// DestinationService is WebhookService over every destination type.
	DestinationService *webhooks.Service
	EventLog           *eventlog.Log
}
