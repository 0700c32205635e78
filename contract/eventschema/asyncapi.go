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

	// message is an event type's message: its envelope, with the headers
	// headers lists, titled by the type and what the message is.
	message := func(headers func(eventType string) []Header, what string) func(string) S {
		return func(t string) S {
			props, required := S{}, []any{}
			for _, h := range headers(t) {
				s := clone(headerSchema(h, ref))
				s["description"] = h.Description
				props[h.Name] = s
				if h.Required {
					required = append(required, h.Name)
				}
			}
			return S{"title": t + " " + what, "payload": S{"$ref": ref(EnvelopeName(t))},
				"headers": S{"type": "object", "properties": props, "required": required}}
		}
	}
	addChannel(channelWebhook, S{
		"address": nil,
		"title":   "Webhook deliveries",
		"description": "POSTed to the URL of every Active webhook subscribed to the event type, signed by the webhook's scheme; " +
			"a 2xx answer within 10 seconds delivers, anything else is retried. The verification request goes to a webhook being enabled.",
		"servers":  []any{S{"$ref": "#/servers/receiver"}},
		"bindings": S{"http": S{"bindingVersion": "0.3.0"}},
	}, S{"title": "Deliver events to webhooks", "bindings": S{"http": S{"method": "POST", "bindingVersion": "0.3.0"}}},
		EventTypes(), message(Headers, "delivery"))
	brokerMessage := message(BrokerHeaders, "message")
	brokerNote := " Each message is the event envelope a webhook receives, signed with the destination's own secret " +
		"(Standard Webhooks headers); at least once, in commit order per load, a failed publish retried as a webhook delivery is."
	addChannel(ChannelNATS, S{
		"address": "{subjectPrefix}.{tenant}.{eventType}.{load}",
		"title":   "NATS JetStream destinations",
		"description": "Published to the JetStream server of every Active nats-jetstream destination subscribed to the event type, " +
			"with Nats-Msg-Id the event id (JetStream drops a repeat within the stream's duplicate window); the stream's acknowledgement delivers. " +
			"tenant, eventType and load are each one token: every byte but ASCII letters, digits, - and _ is written %XX." + brokerNote,
		"parameters": S{
			"subjectPrefix": S{"description": "The destination's subject prefix (one or more tokens)."},
			"tenant":        S{"description": "The tenant's slug."},
			"eventType":     S{"description": "The event type, escaped into one token (load%2Echanged)."},
			"load":          S{"description": "The load number, escaped into one token."},
		},
		"servers": []any{S{"$ref": "#/servers/nats"}},
	}, S{"title": "Publish events to NATS JetStream"}, domain.EventTypes, brokerMessage)
	addChannel(ChannelRabbitMQ, S{
		"address": "{routingKey}",
		"title":   "RabbitMQ destinations",
		"description": "Published to the exchange of every Active rabbitmq destination subscribed to the event type: persistent, mandatory, " +
			"message_id the event id, type the event type; the publisher confirm delivers, a returned (unroutable) message is a failed attempt." + brokerNote,
		"parameters": S{"routingKey": S{"description": "The destination's routing-key template with {tenant}, {type} and {load}, each escaped into one word."}},
		"servers":    []any{S{"$ref": "#/servers/rabbitmq"}},
	}, S{"title": "Publish events to RabbitMQ", "bindings": S{"amqp": S{"deliveryMode": 2, "mandatory": true, "bindingVersion": "0.3.0"}}},
		domain.EventTypes, brokerMessage)
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
			"nats": S{"host": "{natsHost}", "protocol": "nats", "description": "Your NATS server (a nats-jetstream destination's URL).",
				"variables": S{"natsHost": S{"description": "The host and port of the destination's URL."}}},
			"rabbitmq": S{"host": "{amqpHost}", "protocol": "amqps", "description": "Your RabbitMQ broker (a rabbitmq destination's URL).",
				"variables": S{"amqpHost": S{"description": "The host and port of the destination's URL."}}},
			"receiver": S{"host": "{receiverHost}", "protocol": "https", "description": "Your webhook endpoint (any URL registered as a webhook).",
				"variables": S{"receiverHost": S{"description": "The host of the webhook's URL."}}},
		},
		"channels":   channels,
		"operations": operations,
		"components": S{"schemas": schemas, "messages": messages},
	}, nil
}
