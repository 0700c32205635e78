package graph

import (
	"context"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// codeStreamingTransport refuses a subscription sent as a plain HTTP
// request: it would hold the request open until an event comes.
const codeStreamingTransport = "STREAMING_TRANSPORT_REQUIRED"

func init() { errcode.RegisterErrorType(codeStreamingTransport, errcode.KindProtocol) }

// plainHTTP marks a request served by the plain GET/POST transports, with
// what the refusal of a subscription needs.
type plainHTTP struct {
	websocketURL    string
	graphqlResponse bool // Accept: application/graphql-response+json
}

type plainHTTPKey struct{}

func withPlainHTTP(ctx context.Context, r *http.Request) context.Context {
	scheme := "ws"
	if r.TLS != nil {
		scheme = "wss"
	}
	return context.WithValue(ctx, plainHTTPKey{}, plainHTTP{
		websocketURL:    scheme + "://" + r.Host + r.URL.Path,
		graphqlResponse: strings.Contains(r.Header.Get("Accept"), "application/graphql-response+json"),
	})
}

// httpSubscriptionGuard answers a subscription over plain HTTP at once with
// an error naming the WebSocket endpoint (and SSE), before any execution.
type httpSubscriptionGuard struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = httpSubscriptionGuard{}

func (httpSubscriptionGuard) ExtensionName() string                   { return "HTTPSubscriptionGuard" }
func (httpSubscriptionGuard) Validate(graphql.ExecutableSchema) error { return nil }

func (httpSubscriptionGuard) MutateOperationContext(ctx context.Context, op *graphql.OperationContext) *gqlerror.Error {
	plain, ok := ctx.Value(plainHTTPKey{}).(plainHTTP)
	if !ok || op.Operation == nil || op.Operation.Operation != ast.Subscription {
		return nil
	}
	if o := outcomeFrom(ctx); o != nil && plain.graphqlResponse {
		o.status = http.StatusBadRequest // a request error without data (GraphQL over HTTP)
	}
	return limitErr(codeStreamingTransport,
		"subscriptions are served over WebSocket at "+plain.websocketURL+
			` (subprotocol graphql-transport-ws), or over server-sent events with a POST that accepts text/event-stream`,
		map[string]any{"websocket": plain.websocketURL})
}
