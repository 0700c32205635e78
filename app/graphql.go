package app

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"

	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/graph/generated"
	"github.com/haulgraph/haulgraph/graph/live"
	"github.com/haulgraph/haulgraph/graph/loaders"
	"github.com/haulgraph/haulgraph/graph/operation"
	"github.com/haulgraph/haulgraph/graph/transport"
	"github.com/haulgraph/haulgraph/graphiql"
	"github.com/haulgraph/haulgraph/httpedge"
	"github.com/haulgraph/haulgraph/resolvers"
	"github.com/haulgraph/haulgraph/respcache"
	"github.com/haulgraph/haulgraph/storage"
)

// wireGraphQL composes and mounts the GraphQL endpoint at /graphql (GET, POST; GraphiQL
// for browsers). a.GraphQL.Server accepts further transports (WebSocket).
// The cost budget spends from the instance's one shared limiter, as does
// every WebSocket operation (the request-rate buckets).
func (a *App) wireGraphQL(mux *http.ServeMux, auth func(http.Handler) http.Handler, limits *httpedge.RateLimits) {
	budget, refill := a.Config.GraphQLCostBudget, a.Config.GraphQLCostRefill
	if budget <= 0 {
		budget = operation.DefaultCostBudget
	}
	if refill <= 0 {
		refill = operation.DefaultCostRefill
	}
	throttle := operation.NewThrottle(limits.Limiter, budget, refill)
	throttle.Refused = func() { a.Metrics.RateLimited("graphql_cost") }
	readStore := &storage.Reads{DB: a.DB}
	a.GraphQL = NewGraphQL(&resolvers.Resolver{
		Reads: &reads.Service{Store: readStore},
		// Webhooks is wired before GraphQL (app/webhooks.go).
		WebhookService:     a.Webhooks.Service,
		DestinationService: a.Webhooks.Destinations,
		EventLog:           a.Events.Log,
		// Document uploads (GraphQL multipart) and Document.downloadUrl.
		Documents:     a.Documents,
		LoadWrites:    a.Events.LoadWrites,
		Subscriptions: a.Events.Subscriptions,
	}, readStore, a.Log, GraphQLOptions{
		DisableIntrospection: a.Config.DisableIntrospection,
		ReadOnlyQueries:      a.replicas != nil,
		EmittedEvent:         a.Config.EmittedEvent,
		MaxCost:              a.Config.GraphQLCostLimit,
		MaxNodes:             a.Config.GraphQLMaxNodes,
		MaxNesting:           a.Config.GraphQLMaxNesting,
		MaxErrors:            a.Config.GraphQLMaxErrors,
		RefusalCost:          a.Config.GraphQLRefusalCost,
		RefusalCostPerKiB:    a.Config.GraphQLRefusalCostPerKiB,
		Throttle:             throttle,
		Cache:                a.Cache,
		PersistedQueries:     a.Config.PersistedQueriesPerTenant,
		PersistedQueryBytes:  a.Config.PersistedQueryBytesPerTenant,
		// GraphQL over SSE: every stream is one request, charged to the
		// rate limits by auth like any other.
		Streams: transport.SSEOptions{
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
	})
	a.GraphQL.Server.AddTransport(a.websocketTransport(limits))
	// A conditional GET is answered 304 before the limits: the tenant's
	// bucket alone, no client token, no query cost (without a cache,
	// Conditional is the limits alone).
	var mark func(context.Context) context.Context
	if a.replicas != nil {
		mark = storage.ReadOnly
	}
	conditional := a.Cache.Conditional(a.GraphQL.Describe, limits.Refusing(transport.WriteRateLimited), mark)
	a.GraphQL.Page = graphiql.Page(a.graphiqlOptions)
	mux.Handle("GET "+graphiql.AssetsPath, graphiql.Assets())
	mux.Handle("/graphql", a.Auth.Middleware(conditional(a.GraphQL)))
	mux.Handle("/graphql/stream", auth(transport.StreamRoute(a.GraphQL))) // graphql-sse, distinct connections
}

// GraphQLOptions are the GraphQL endpoint's limits and switches.
type GraphQLOptions struct {
	// EmittedEvent, when set, is told every subscription event payload a
	// streaming transport writes (tests validate them).
	EmittedEvent eventschema.EmitFunc
	// DisableIntrospection turns __schema/__type off (on by default).
	DisableIntrospection bool
	// ReadOnlyQueries marks query operations read-only, so that storage may
	// serve them from a replica (only worth its cost with replicas).
	ReadOnlyQueries bool
	MaxDepth        int   // default 12
	MaxCost         int   // requested cost of one query, default operation.DefaultCostLimit
	MaxBodyBytes    int64 // default 1 MiB
	// MaxNodes bounds a document's selections, directives and values,
	// fragments counted each time they are spread (default operation.DefaultMaxNodes);
	// MaxNesting how deep they nest (default operation.DefaultMaxNesting); MaxErrors
	// the errors of one answer (default operation.DefaultMaxErrors).
	MaxNodes, MaxNesting, MaxErrors int
	// RefusalCost and RefusalCostPerKiB are what a document refused before
	// execution (parse, validation, limits) costs the client's budget:
	// taken as a deposit before the document is read, returned when it runs
	// (defaults operation.DefaultRefusalCost, operation.DefaultRefusalCostPerKiB).
	RefusalCost, RefusalCostPerKiB int
	// Throttle is the per-client cost budget (shared by the instances);
	// nil charges nothing. MaxCost is capped at its budget.
	Throttle *operation.Throttle
	// Streams configure GraphQL over server-sent events (its Live is the
	// endpoint's own).
	Streams transport.SSEOptions
	// Cache answers queries over plain HTTP from memory (nil: none).
	Cache *respcache.Cache
	// PersistedQueries and PersistedQueryBytes bound each tenant's
	// persisted queries (default operation.DefaultPersistedQueries, 1,000, and
	// operation.DefaultPersistedQueryBytes, 4 MiB).
	PersistedQueries    int
	PersistedQueryBytes int
}

// NewGraphQL composes the GraphQL endpoint over r (what the resolvers
// need) and src (the relation loaders): gqlgen's executable schema, its
// server with the extensions every operation passes (introspection,
// persisted queries, document bounds, dataloaders, the subscription guard,
// cost), the error presenter, and the transports that need nothing from
// auth (uploads when r.Documents is set, SSE, plain HTTP). The WebSocket
// transport is added by wireGraphQL, which has the token check.
func NewGraphQL(r *resolvers.Resolver, src loaders.Source, log *slog.Logger, o GraphQLOptions) *transport.Endpoint {
	if o.MaxDepth <= 0 {
		o.MaxDepth = 12
	}
	if o.MaxCost <= 0 {
		o.MaxCost = operation.DefaultCostLimit
	}
	if o.Throttle != nil {
		o.MaxCost = min(o.MaxCost, o.Throttle.Budget())
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = 1 << 20
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = operation.DefaultMaxNodes
	}
	if o.MaxNesting <= 0 {
		o.MaxNesting = operation.DefaultMaxNesting
	}
	if o.MaxErrors <= 0 {
		o.MaxErrors = operation.DefaultMaxErrors
	}
	if o.RefusalCost <= 0 {
		o.RefusalCost = operation.DefaultRefusalCost
	}
	if o.RefusalCostPerKiB <= 0 {
		o.RefusalCostPerKiB = operation.DefaultRefusalCostPerKiB
	}
	if log == nil {
		log = slog.Default()
	}
	es := generated.NewExecutableSchema(generated.Config{
		Resolvers:  r,
		Directives: generated.DirectiveRoot{HasScope: operation.HasScope},
	})
	srv := handler.New(es)
	if r.Documents != nil { // uploads (GraphQL multipart), before the plain HTTP transport
		srv.AddTransport(transport.UploadTransport(r.Documents.MaxFileBytes()))
	}
	shared := live.New(r.Subscriptions, operation.PresentError(log), o.EmittedEvent)
	streams := o.Streams
	streams.Live = shared
	sse := transport.NewSSE(streams, o.MaxBodyBytes)
	srv.AddTransport(sse) // before the plain HTTP transport, which takes every GET and POST
	if o.Cache != nil {
		srv.AddTransport(transport.NewCachedHTTP(o.MaxBodyBytes)) // after uploads
	} else {
		srv.AddTransport(transport.NewHTTP(o.MaxBodyBytes))
	}
	validated := operation.NewValidatedDocuments()
	srv.SetQueryCache(validated)
	srv.SetParserTokenLimit(operation.ParserTokenLimit)
	// Without introspection no error may name the schema either.
	srv.SetDisableSuggestion(o.DisableIntrospection)
	validation := operation.ValidationRules(o.MaxErrors, operation.OverlapWork*o.MaxNodes, !o.DisableIntrospection)
	srv.SetValidationRulesFn(validation)
	if !o.DisableIntrospection {
		srv.Use(extension.Introspection{})
	}
	if o.ReadOnlyQueries {
		srv.Use(readOnlyQueries{}) // queries may read from a replica
	}
	srv.Use(extension.AutomaticPersistedQuery{Cache: operation.NewPersistedQueries(o.PersistedQueries, o.PersistedQueryBytes)})
	// After the persisted query is looked up, before anything else reads it.
	bounds := operation.DocumentBounds{MaxNodes: o.MaxNodes, MaxNesting: o.MaxNesting, Validated: validated, Throttle: o.Throttle,
		RefusalCost: o.RefusalCost, RefusalCostPerKiB: o.RefusalCostPerKiB}
	srv.Use(bounds)
	dataloaders := loaders.Extension{Source: src}
	if r.Documents != nil { // a nil *Service in the interface would not read as nil
		dataloaders.Documents = r.Documents
	}
	srv.Use(dataloaders)
	srv.Use(transport.SubscriptionGuard{})
	srv.Use(&operation.Cost{MaxCost: o.MaxCost, MaxDepth: o.MaxDepth, Throttle: o.Throttle, Log: log})
	var describe respcache.Describe
	if o.Cache != nil { // inside the cost check and report: both run for every answer
		cached := &transport.CachedQueries{Cache: o.Cache, Bounds: bounds, Validated: validated, Rules: validation, MaxQuery: o.MaxBodyBytes}
		srv.Use(cached)
		describe = cached.Describe
	}
	present := operation.PresentError(log)
	if o.DisableIntrospection {
		present = operation.HideSchema(present) // no error names the schema either
	}
	srv.SetErrorPresenter(present)
	srv.SetRecoverFunc(operation.RecoverPanic(log))
	return &transport.Endpoint{Server: srv, Live: shared, SSE: sse, MaxBodyBytes: o.MaxBodyBytes, Describe: describe}
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
