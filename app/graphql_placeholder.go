package app

import (
	"context"
	"errors"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/generated"
	"github.com/haulgraph/haulgraph/resolvers"
)

// TEMPORARY (events branch, until the reads area's graph.NewHandler is
// merged): a bare /graphql with POST and the WebSocket transport. At merge,
// drop this file and add to the reads assembly: LoadWrites/Subscriptions in
// resolvers.Resolver and a.GraphQL.Server.AddTransport(a.websocketTransport()).
func (a *App) wireGraphQLPlaceholder(mux *http.ServeMux) {
	srv := handler.New(generated.NewExecutableSchema(generated.Config{
		Resolvers:  &resolvers.Resolver{LoadWrites: a.Events.LoadWrites, Subscriptions: a.Events.Subscriptions},
		Directives: generated.DirectiveRoot{HasScope: placeholderHasScope},
	}))
	srv.SetErrorPresenter(func(ctx context.Context, err error) *gqlerror.Error {
		e := graphql.DefaultErrorPresenter(ctx, err)
		var de *domain.Error
		if errors.As(err, &de) {
			e.Message = de.Message
			e.Extensions = map[string]any{"code": string(de.Code)}
			if len(de.Fields) > 0 {
				e.Extensions["fields"] = de.Fields
			}
		}
		return e
	})
	srv.AddTransport(a.websocketTransport())
	srv.AddTransport(transport.POST{})
	mux.Handle("/graphql", a.Auth.Middleware(srv))
}

func placeholderHasScope(ctx context.Context, _ any, next graphql.Resolver, scope string) (any, error) {
	p, err := domain.Authenticated(ctx)
	if err != nil {
		return nil, err
	}
	if !p.Has(domain.Scope(scope)) {
		return nil, &domain.Error{Code: domain.CodeForbidden, Message: "the token lacks the scope " + scope}
	}
	return next(ctx)
}
