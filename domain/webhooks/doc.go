// Package webhooks is the webhooks area: a webhook's states and their
// transitions, signing schemes and keys, the address rules that keep
// deliveries off internal hosts, routing events to webhooks, the retry and
// recovery policy of deliveries, the management service and its store.
package webhooks
