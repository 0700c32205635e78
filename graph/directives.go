package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/haulgraph/haulgraph/domain"
)

// hasScope is the @hasScope(scope:) directive: the field resolves only when
// the caller's token holds scope (docs/architecture.md's endpoint → scope table, whose
// strings are domain.RequiredScope's; TestScopeDirectivesMatchDomain checks).
func hasScope(ctx context.Context, _ any, next graphql.Resolver, scope string) (any, error) {
	if _, err := domain.AuthorizeScope(ctx, domain.Scope(scope)); err != nil {
		return nil, err
	}
	return next(ctx)
}
