package eventschema

import (
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/haulgraph/haulgraph/domain"
)

// Channel names (and their AsyncAPI keys).
var (
	channelWebhook = ChannelWebhook
	channelEvents  = ChannelEventsAPI
	channelWS      = ChannelGraphQLWS
	channelSSE     = ChannelGraphQLSSE
)

func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// MessageName is the AsyncAPI message of eventType on channel.
func MessageName(channel, eventType string) string {
	n := lowerFirst(strings.TrimSuffix(EnvelopeName(eventType), "Event"))
	return n + strings.ToUpper(channel[:1]) + channel[1:]
}

// AsyncAPI is the AsyncAPI 3.0 document of every event channel; schema is
// the GraphQL schema the subscription results are described from.
func AsyncAPI(schema *ast.Schema) (S, error) {
	ref := func(name string) string { return "#/components/schemas/" + name }
	schemas := S{}
	for name, d := range Definitions(ref) {
		schemas[name] = d
	}
	gql, err := GraphQLDefinitions(schema, SubscriptionFields, ref)
	if err != nil {
		return nil, err
	}
	for name, d := range gql {
		schemas[name] = d
	}
	messages := S{}
	channels := S{}
	operations := S{}
	addChannel := func(channel string, ch S, op S, types []string, message func(eventType string) S) {
		msgs := S{}
		var refs []any
		for _, t := range types {
			name := MessageName(channel, t)
			m := message(t)
			m["name"] = t
			m["contentType"] = "application/json"
			messages[name] = m
			msgs[lowerFirst(strings.TrimSuffix(EnvelopeName(t), "Event"))] = S{"$ref": "#/components/messages/" + name}
		}
		keys := make([]string, 0, len(msgs))
		for k := range msgs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			refs = append(refs, S{"$ref": "#/channels/" + channel + "/messages/" + k})
		}
		ch["messages"] = msgs
		channels[channel] = ch
		op["channel"] = S{"$ref": "#/channels/" + channel}
		op["messages"] = refs
		op["action"] = "send"
		operations[channel] = op
	}

	addChannel(channelWebhook, S{
		"address": nil,
		"title":   "Webhook deliveries",
		"description": "POSTed to the URL of every Active webhook subscribed to the event type, signed by the webhook's scheme; " +
			"a 2xx answer within 10 seconds delivers, anything else is retried. The verification request goes to a webhook being enabled.",
		"servers":  []any{S{"$ref": "#/servers/receiver"}},
		"bindings": S{"http": S{"bindingVersion": "0.3.0"}},
	}, S{"title": "Deliver events to webhooks", "bindings": S{"http": S{"method": "POST", "bindingVersion": "0.3.0"}}},
		EventTypes(), func(t string) S {
			props, required := S{}, []any{}
			for _, h := range Headers(t) {
				s := clone(headerSchema(h, ref))
				s["description"] = h.Description
				props[h.Name] = s
				if h.Required {
					required = append(required, h.Name)
				}
			}
			return S{"title": t + " delivery", "payload": S{"$ref": ref(EnvelopeName(t))},
				"headers": S{"type": "object", "properties": props, "required": required}}
		})
	addChannel(channelEvents, S{
		"address": "/api/p/v1/events",
		"title":   "Events API",
		"description": "GET /api/p/v1/events answers a JSON array of these envelopes, oldest first, each byte for byte the body a webhook received " +
			"(previousAttributes only with includePreviousAttributes=true); Link rel=\"next\" pages on. Events are kept 30 days.",
		"servers": []any{S{"$ref": "#/servers/api"}},
	}, S{"title": "List past events", "bindings": S{"http": S{"method": "GET", "bindingVersion": "0.3.0"}}},
		domain.EventTypes, func(t string) S {
			return S{"title": t, "payload": S{"$ref": ref(EnvelopeName(t))}}
		})
	resultNote := " The payload is a GraphQL result of the subscription's selection set: a field is present only when selected, " +
		"and then has exactly its schema type (the schema below has no required properties, and describes fields under their schema names, not aliases)."
	field := func(t string) string {
		for f, et := range SubscriptionFields {
			if et == t {
				return f
			}
		}
		return ""
	}
	addChannel(channelWS, S{
		"address": "/graphql",
		"title":   "GraphQL subscriptions over WebSocket",
		"description": "The graphql-transport-ws protocol (Sec-WebSocket-Protocol: graphql-transport-ws): after connection_init with the bearer token, " +
			"`subscribe` to loadChanged, loadStatusChanged or tripChanged; every event is a `next` message." + resultNote,
		"servers":  []any{S{"$ref": "#/servers/websocket"}},
		"bindings": S{"ws": S{"method": "GET", "bindingVersion": "0.1.0"}},
	}, S{"title": "Stream subscription events over WebSocket"},
		domain.EventTypes, func(t string) S {
			return S{"title": "next: " + field(t), "payload": S{"type": "object", "required": []any{"id", "type", "payload"},
				"properties": S{
					"id":      S{"type": "string", "description": "The id the client gave the subscription."},
					"type":    S{"type": "string", "const": "next"},
					"payload": S{"$ref": ref(SubscriptionResultName(field(t)))},
				}, "additionalProperties": false}}
		})
	addChannel(channelSSE, S{
		"address": "/graphql/stream",
		"title":   "GraphQL subscriptions over server-sent events",
		"description": "GraphQL over SSE (distinct connections mode): POST or GET the subscription with Accept: text/event-stream; " +
			"every event is `event: next` whose `id:` is the event's cursor (Last-Event-ID resumes after it) and whose `data:` is this payload." + resultNote,
		"servers": []any{S{"$ref": "#/servers/api"}},
	}, S{"title": "Stream subscription events over SSE", "bindings": S{"http": S{"method": "POST", "bindingVersion": "0.3.0"}}},
		domain.EventTypes, func(t string) S {
			return S{"title": "next: " + field(t), "payload": S{"$ref": ref(SubscriptionResultName(field(t)))}}
		})

	hostVar := S{"host": S{"default": "localhost:8080", "description": "The API's host (and port)."}}
	return S{
		"asyncapi": "3.0.0",
		"id":       "urn:haulgraph:events",
		"info": S{
			"title":   "HaulGraph events",
			"version": domain.EventPayloadVersion,
			"description": "Every event HaulGraph emits: load.changed, load.status.changed and trip.changed, with the same envelope " +
				"on webhooks and in the events API, and as GraphQL results on the subscription transports. " +
				"JSON Schemas per event type: /api/p/schemas/events/{type}.json; the OpenAPI document's webhooks section describes the same requests.",
		},
		"defaultContentType": "application/json",
		"servers": S{
			"api":       S{"host": "{host}", "protocol": "https", "variables": hostVar, "description": "The HaulGraph API."},
			"websocket": S{"host": "{host}", "protocol": "wss", "variables": hostVar, "description": "The HaulGraph API's WebSocket endpoint."},
			"receiver": S{"host": "{receiverHost}", "protocol": "https", "description": "Your webhook endpoint (any URL registered as a webhook).",
				"variables": S{"receiverHost": S{"description": "The host of the webhook's URL."}}},
		},
		"channels":   channels,
		"operations": operations,
		"components": S{"schemas": schemas, "messages": messages},
	}, nil
}
