package eventschema

// The channels an event leaves by, as the AsyncAPI document names them: the
// transports emit under these names (app.Config.EmittedEvent) and the
// validator checks each payload against its channel's schema.
const (
	ChannelWebhook    = "webhook"       // events/webhook's deliveries
	ChannelEventsAPI  = "eventsApi"     // rest's events API
	ChannelGraphQLWS  = "graphqlWs"     // graph/transport's WebSocket
	ChannelGraphQLSSE = "graphqlSse"    // graph/transport's SSE
	ChannelNATS       = "natsJetStream" // events/webhook's JetStream destinations
	ChannelRabbitMQ   = "rabbitmq"      // events/webhook's RabbitMQ destinations
)

// EmitFunc is told every event payload as it is written to a channel.
type EmitFunc func(channel, eventType string, body []byte)
