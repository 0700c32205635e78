package domain

import "context"

type traceKey struct{}

// WithTraceID stores the request's W3C trace id (from traceparent, or new).
func WithTraceID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, traceKey{}, id)
}

// TraceIDFrom returns the request's trace id, or "".
func TraceIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(traceKey{}).(string)
	return id
}
