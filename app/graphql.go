package app

import (
	"net/http"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/storage"
)

// wireGraphQL mounts the GraphQL endpoint at /graphql (GET, POST; GraphiQL
// for browsers). a.GraphQL.Server accepts further transports (WebSocket).
func (a *App) wireGraphQL(mux *http.ServeMux, auth func(http.Handler) http.Handler, limits *rest.RateLimits) {
	reads := &storage.Reads{DB: a.DB}
	a.GraphQL = graph.NewHandler(graph.Deps{
		Reads:   &domain.Reads{Store: reads},
		Loaders: reads,
		// Webhooks is wired before GraphQL (app/webhooks.go).
		Webhooks: a.Webhooks.Service,
		// Document uploads (GraphQL multipart) and Document.downloadUrl.
		Documents:     a.Documents,
		LoadWrites:    a.Events.LoadWrites,
		Subscriptions: a.Events.Subscriptions,
		Log:           a.Log,
		Options:       graph.Options{DisableIntrospection: a.Config.DisableIntrospection},
	})
	a.GraphQL.Server.AddTransport(a.websocketTransport(limits))
	mux.Handle("/graphql", auth(a.GraphQL))
}
