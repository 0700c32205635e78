package graph

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/haulgraph/haulgraph/domain"
)

// hasScope is the @hasScope(scope:) directive: the field resolves only when
// the caller's token holds scope (DESIGN.md's endpoint → scope table, whose
// strings are domain.RequiredScope's; TestScopeDirectivesMatchDomain checks).
func hasScope(ctx context.Context, _ any, next graphql.Resolver, scope string) (any, error) {
	p, err := domain.Authenticated(ctx)
	if err != nil {
		return nil, err
	}
	if !p.Has(domain.Scope(scope)) {
		return nil, &domain.Error{Code: domain.CodeForbidden, Message: "the token lacks the scope " + scope,
			Fields: map[string][]string{"scope": {scope}}}
	}
	return next(ctx)
}
