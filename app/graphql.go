package app

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"

	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/graph"
	"github.com/haulgraph/haulgraph/graphiql"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/storage"
)

// wireGraphQL mounts the GraphQL endpoint at /graphql (GET, POST; GraphiQL
// for browsers). a.GraphQL.Server accepts further transports (WebSocket).
// The cost budget spends from the instance's one shared limiter, as does
// every WebSocket operation (the request-rate buckets).
func (a *App) wireGraphQL(mux *http.ServeMux, auth func(http.Handler) http.Handler, limits *rest.RateLimits) {
	budget, refill := a.Config.GraphQLCostBudget, a.Config.GraphQLCostRefill
	if budget <= 0 {
		budget = graph.DefaultCostBudget
	}
	if refill <= 0 {
		refill = graph.DefaultCostRefill
	}
	throttle := graph.NewThrottle(limits.Limiter, budget, refill)
	throttle.Refused = func() { a.Metrics.RateLimited("graphql_cost") }
	store := &storage.Reads{DB: a.DB}
	a.GraphQL = graph.NewHandler(graph.Deps{
		Reads:   &reads.Service{Store: store},
		Loaders: store,
		// Webhooks is wired before GraphQL (app/webhooks.go).
		Webhooks: a.Webhooks.Service,
		Events:   a.Events.Log,
		// Document uploads (GraphQL multipart) and Document.downloadUrl.
		Documents:     a.Documents,
		LoadWrites:    a.Events.LoadWrites,
		Subscriptions: a.Events.Subscriptions,
		Log:           a.Log,
		Options: graph.Options{
			DisableIntrospection: a.Config.DisableIntrospection,
			EmittedEvent:         a.Config.EmittedEvent,
			MaxCost:              a.Config.GraphQLCostLimit,
			MaxNodes:             a.Config.GraphQLMaxNodes,
			MaxNesting:           a.Config.GraphQLMaxNesting,
			MaxErrors:            a.Config.GraphQLMaxErrors,
			RefusalCost:          a.Config.GraphQLRefusalCost,
			RefusalCostPerKiB:    a.Config.GraphQLRefusalCostPerKiB,
			Throttle:             throttle,
			PersistedQueries:     a.Config.PersistedQueriesPerTenant,
			PersistedQueryBytes:  a.Config.PersistedQueryBytesPerTenant,
			// GraphQL over SSE: every stream is one request, charged to the
			// rate limits by auth like any other.
			Streams: graph.SSEOptions{
				MaxStreamsPerClient:  a.Config.SSEMaxStreamsClient,
				MaxStreamsPerTenant:  a.Config.SSEMaxStreamsTenant,
				MaxStreamsPerAddress: a.Config.SSEMaxStreamsAddress,
				WriteTimeout:         a.Config.StreamWriteTimeout,
				Queue:                a.Config.SubscriberBuffer,
				Heartbeat:            a.Config.SSEHeartbeat,
				Closing:              a.closing,
				AfterFunc:            a.Config.TokenExpiryTimer,
				Opened:               a.Metrics.SSE().Opened,
			},
		},
	})
	a.GraphQL.Server.AddTransport(a.websocketTransport(limits))
	a.GraphQL.Page = graphiql.Page(a.graphiqlOptions)
	mux.Handle("GET "+graphiql.AssetsPath, graphiql.Assets())
	mux.Handle("/graphql", auth(a.GraphQL))
	mux.Handle("/graphql/stream", auth(graph.StreamRoute(a.GraphQL))) // graphql-sse, distinct connections
}

// graphiqlOptions fills GraphiQL's page: the audience to ask tokens for and,
// in the demo only, the demo client's credentials (DemoDir/DemoClientFile).
func (a *App) graphiqlOptions() graphiql.Options {
	o := graphiql.Options{Audience: a.Config.Audience}
	if a.Config.DemoDir == "" {
		return o
	}
	var creds struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if b, err := os.ReadFile(filepath.Join(a.Config.DemoDir, DemoClientFile)); err == nil && json.Unmarshal(b, &creds) == nil {
		o.ClientID, o.ClientSecret = creds.ClientID, creds.ClientSecret
	}
	return o
}
