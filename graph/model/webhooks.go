package model

import (
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// WebhookNode is a webhook as the graph serves it. When a list of webhooks
// selects deliveries, the list resolver fetches them for all webhooks in one
// query and leaves them here (Prefetched), so deliveries is no N+1.
type WebhookNode struct {
	webhooks.Webhook
	Prefetched []webhooks.Delivery
	// HasPrefetched distinguishes "prefetched, none" from "not prefetched".
	HasPrefetched bool
}
