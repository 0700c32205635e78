package operation

import (
	"context"

	"github.com/99designs/gqlgen/graphql"

	"github.com/haulgraph/haulgraph/domain"
)

// HasScope is the @HasScope(scope:) directive: the field resolves only when
// the caller's token holds scope: the scope of the area's operation the field
// runs (reads.OpReadInvoice, ...; TestScopeDirectivesMatchDomain checks).
func HasScope(ctx context.Context, _ any, next graphql.Resolver, scope string) (any, error) {
	if _, err := domain.AuthorizeScope(ctx, domain.Scope(scope)); err != nil {
		return nil, err
	}
	return next(ctx)
}
