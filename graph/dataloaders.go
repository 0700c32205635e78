package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/graph/loaders"
	"github.com/haulgraph/haulgraph/resolvers"
)

// loaderExtension is the one N+1 mechanism of queries and subscriptions: it
// gives every response fresh dataloaders bound to the caller's tenant (the
// relation loaders and the documents loaders): a query's one response, and
// each event of a subscription, so a long-lived subscription never serves
// rows or documents cached from an older event.
type loaderExtension struct {
	src  loaders.Source
	docs *documents.Service // nil: uploads are off
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = loaderExtension{}

func (loaderExtension) ExtensionName() string                   { return "Dataloaders" }
func (loaderExtension) Validate(graphql.ExecutableSchema) error { return nil }

func (e loaderExtension) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if p := domain.PrincipalFrom(ctx); p != nil {
		ctx = loaders.With(ctx, loaders.New(e.src, p.TenantID))
	}
	if e.docs != nil {
		ctx = resolvers.WithDocumentLoaders(ctx, e.docs)
	}
	return next(ctx)
}
