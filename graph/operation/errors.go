package operation

import (
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/domain"
)

// PresentError maps every resolver error to extensions.code: a domain error
// keeps its code, message and offending fields; gqlgen's own request errors
// (parse, validation, limits) keep theirs; anything else is logged and shown
// as a generic INTERNAL error, so SQL and stack traces never leave the server.
func PresentError(log *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		var de *domain.Error
		switch {
		case errors.As(domain.Classify(err), &de):
			if de.Code == domain.CodeUnavailable {
				if o := OutcomeFrom(ctx); o != nil { // over HTTP: 503 and Retry-After
					o.unavailable()
				}
			}
			gqlErr.Message = de.Message
			gqlErr.Extensions = map[string]any{"code": string(de.Code)}
			if len(de.Fields) > 0 {
				gqlErr.Extensions["fields"] = de.Fields
			}
		case gqlErr.Rule == noIntrospectionRule:
			// __schema/__type, aliased or not, while introspection is off.
			gqlErr.Extensions = map[string]any{"code": string(domain.CodeForbidden)}
		case gqlErr.Err == nil:
			// Produced by gqlgen itself: parse, validation, limits.
			if gqlErr.Extensions == nil || gqlErr.Extensions["code"] == nil {
				if gqlErr.Extensions == nil {
					gqlErr.Extensions = map[string]any{}
				}
				gqlErr.Extensions["code"] = string(domain.CodeInvalid)
			}
		case ctx.Err() != nil && errors.Is(err, context.Canceled):
			// The client went away (a subscriber reset mid-replay): not
			// the server's error, and nobody reads the answer.
			log.DebugContext(ctx, "graphql: request canceled", "err", err, "path", gqlErr.Path.String())
			gqlErr.Message = "the request was canceled: the client went away"
			gqlErr.Extensions = map[string]any{"code": string(domain.CodeCanceled)}
		default:
			log.ErrorContext(ctx, "graphql: internal error", "err", err, "path", gqlErr.Path.String(), "traceId", domain.TraceIDFrom(ctx))
			gqlErr.Message = "internal error"
			gqlErr.Extensions = map[string]any{"code": string(domain.CodeInternal)}
			if id := domain.TraceIDFrom(ctx); id != "" {
				gqlErr.Extensions["traceId"] = id
			}
		}
		gqlErr.Err = nil
		return gqlErr
	}
}

// RecoverPanic turns a resolver panic into an INTERNAL error after logging it.
func RecoverPanic(log *slog.Logger) graphql.RecoverFunc {
	return func(ctx context.Context, p any) error {
		log.ErrorContext(ctx, "graphql: panic", "panic", fmt.Sprint(p), "traceId", domain.TraceIDFrom(ctx))
		return errors.New("internal error")
	}
}

// Coded is a GraphQL error with extensions.code, its message formatted.
func Coded(code domain.Code, format string, args ...any) *gqlerror.Error {
	return &gqlerror.Error{Message: fmt.Sprintf(format, args...), Extensions: map[string]any{"code": string(code)}}
}

// CodedError is a GraphQL error with extensions.code.
func CodedError(code domain.Code, msg string) *gqlerror.Error {
	e := &gqlerror.Error{Message: msg}
	errcode.Set(e, string(code))
	return e
}
