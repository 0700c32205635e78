package webhooks

import "github.com/haulgraph/haulgraph/domain"

// The operations of webhooks and the scope each needs.
var (
	// OpListEventTypes is the event-type list: any valid token.
	OpListEventTypes = domain.Operation{Name: "webhook.eventtypes"}
	OpManageWebhooks = domain.Operation{Name: "webhook.manage", Scope: domain.ScopeWebhookManage}
)
