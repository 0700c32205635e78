package transport

import (
	"context"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/graph/operation"
)

// codeStreamingTransport refuses a subscription sent as a plain HTTP
// request: it would hold the request open until an event comes.
const codeStreamingTransport = "STREAMING_TRANSPORT_REQUIRED"

// plainHTTP marks a POST served by the plain HTTP transport, with what the
// refusal of a subscription needs. (A GET with a subscription is refused as
// every non-query GET is: 405.)
type plainHTTP struct {
	transports      string
	graphqlResponse bool // Accept: application/graphql-response+json
}

type plainHTTPKey struct{}

func withPlainHTTP(ctx context.Context, r *http.Request) context.Context {
	if r.Method != http.MethodPost {
		return ctx
	}
	return context.WithValue(ctx, plainHTTPKey{}, plainHTTP{
		transports:      streamingTransports(r),
		graphqlResponse: strings.Contains(r.Header.Get("Accept"), "application/graphql-response+json"),
	})
}

// streamingTransports names where a subscription is served.
func streamingTransports(r *http.Request) string {
	scheme := "ws"
	if r.TLS != nil {
		scheme = "wss"
	}
	web := "http"
	if r.TLS != nil {
		web = "https"
	}
	return "subscribe over WebSocket at " + scheme + "://" + r.Host + r.URL.Path +
		" (subprotocol graphql-transport-ws), or over server-sent events (graphql-sse) at " + web + "://" + r.Host + "/graphql/stream"
}

// SubscriptionGuard answers a subscription over plain HTTP at once with
// an error naming the WebSocket endpoint (and SSE), before any execution.
type SubscriptionGuard struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = SubscriptionGuard{}

func (SubscriptionGuard) ExtensionName() string                   { return "HTTPSubscriptionGuard" }
func (SubscriptionGuard) Validate(graphql.ExecutableSchema) error { return nil }

func (SubscriptionGuard) MutateOperationContext(ctx context.Context, op *graphql.OperationContext) *gqlerror.Error {
	plain, ok := ctx.Value(plainHTTPKey{}).(plainHTTP)
	if !ok || op.Operation == nil || op.Operation.Operation != ast.Subscription {
		return nil
	}
	if o := operation.OutcomeFrom(ctx); o != nil && plain.graphqlResponse {
		o.Refuse(http.StatusBadRequest, 0) // a request error without data (GraphQL over HTTP)
	}
	return operation.LimitError(codeStreamingTransport, "a subscription cannot be sent as a plain POST: "+plain.transports, nil)
}
