package app

import (
	"context"
	"net/http"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/haulgraph/haulgraph/storage"
)

// readOnlyREST marks the REST requests that only read (GET and HEAD, the
// POST searches) so that storage may serve them from a replica. It sits
// inside authentication and the rate limits, which stay on the primary.
func readOnlyREST(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead ||
			(r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/search")) {
			r = r.WithContext(storage.ReadOnly(r.Context()))
		}
		next.ServeHTTP(w, r)
	})
}

// readOnlyQueries marks GraphQL query operations (not mutations, not
// subscriptions) read-only, on every transport.
type readOnlyQueries struct{}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationInterceptor
} = readOnlyQueries{}

func (readOnlyQueries) ExtensionName() string                   { return "ReadOnlyQueries" }
func (readOnlyQueries) Validate(graphql.ExecutableSchema) error { return nil }

func (readOnlyQueries) InterceptOperation(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	if op := graphql.GetOperationContext(ctx); op != nil && op.Operation != nil && op.Operation.Operation == ast.Query {
		ctx = storage.ReadOnly(ctx)
	}
	return next(ctx)
}

// ReplicasHealthy reports which replicas the last health check found
// usable, in HAULGRAPH_REPLICA_URLS order (nil: none configured).
func (a *App) ReplicasHealthy() []bool {
	if a.replicas == nil {
		return nil
	}
	return a.replicas.Healthy()
}
