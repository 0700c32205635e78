package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/loaders"
)

// loaderExtension gives every response fresh dataloaders bound to the
// caller's tenant: a query's one response, and each event of a subscription
// (so a long-lived subscription never serves rows cached from an older event).
type loaderExtension struct{ src loaders.Source }

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
	return next(ctx)
}
