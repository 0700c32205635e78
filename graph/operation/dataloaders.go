package operation

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/graph/loaders"
	"github.com/haulgraph/haulgraph/resolvers"
)

// Loaders is the one N+1 mechanism of queries and subscriptions: it
// gives every response fresh dataloaders bound to the caller's tenant (the
// relation loaders and the documents loaders): a query's one response, and
// each event of a subscription, so a long-lived subscription never serves
// rows or documents cached from an older event.
type Loaders struct {
	Source    loaders.Source
	Documents *documents.Service // nil: uploads are off
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = Loaders{}

func (Loaders) ExtensionName() string                   { return "Dataloaders" }
func (Loaders) Validate(graphql.ExecutableSchema) error { return nil }

func (e Loaders) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if p := domain.PrincipalFrom(ctx); p != nil {
		ctx = loaders.With(ctx, loaders.New(e.Source, p.TenantID))
	}
	if e.Documents != nil {
		ctx = resolvers.WithDocumentLoaders(ctx, e.Documents)
	}
	return next(ctx)
}
