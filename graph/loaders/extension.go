package loaders

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/haulgraph/haulgraph/domain"
)

// Extension is the one N+1 mechanism of queries and subscriptions: it
// gives every response fresh dataloaders bound to the caller's tenant (the
// relation loaders and the documents loaders): a query's one response, and
// each event of a subscription, so a long-lived subscription never serves
// rows or documents cached from an older event.
type Extension struct {
	Source    Source
	Documents DocumentSource // nil: uploads are off
}

var _ interface {
	graphql.HandlerExtension
	graphql.ResponseInterceptor
} = Extension{}

func (Extension) ExtensionName() string                   { return "Dataloaders" }
func (Extension) Validate(graphql.ExecutableSchema) error { return nil }

func (e Extension) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if p := domain.PrincipalFrom(ctx); p != nil {
		ctx = With(ctx, New(e.Source, p.TenantID))
	}
	if e.Documents != nil {
		ctx = WithDocuments(ctx, e.Documents)
	}
	return next(ctx)
}
