package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/loaders"
)

// SubscriptionLoaders gives every event of a subscription its own
// dataloaders (relation fields such as Trip.drivers): one connection lives
// for hours, so a per-connection cache would serve stale records.
func SubscriptionLoaders(src loaders.Source) graphql.ResponseMiddleware {
	return func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		if !graphql.HasOperationContext(ctx) {
			return next(ctx)
		}
		op := graphql.GetOperationContext(ctx).Operation
		p := domain.PrincipalFrom(ctx)
		if op == nil || op.Operation != ast.Subscription || p == nil {
			return next(ctx)
		}
		return next(loaders.With(ctx, loaders.New(src, p.TenantID)))
	}
}
