package transport

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/haulgraph/haulgraph/httpedge"
)

// spanName is an operation's span name: its type and name ("mutation
// CreateLoad"), the type alone for an anonymous one.
func spanName(opCtx *graphql.OperationContext) string {
	name := string(opCtx.Operation.Operation)
	if opCtx.Operation.Name != "" {
		name += " " + opCtx.Operation.Name
	}
	return name
}

// nameRequest names the request's span (HTTP, SSE: one operation each) by
// its operation.
func nameRequest(ctx context.Context, opCtx *graphql.OperationContext) {
	if trace.SpanFromContext(ctx).IsRecording() {
		httpedge.NameSpan(ctx, spanName(opCtx))
	}
}

// startOperation starts the span of one operation of a WebSocket, a child
// of the connection's request span, with the tracer that recorded it (a
// no-op one when tracing is off).
func startOperation(ctx context.Context, opCtx *graphql.OperationContext) (context.Context, trace.Span) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return ctx, parent
	}
	return parent.TracerProvider().Tracer("github.com/haulgraph/haulgraph").Start(ctx, spanName(opCtx),
		trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("graphql.operation.type", string(opCtx.Operation.Operation)),
			attribute.String("graphql.operation.name", opCtx.Operation.Name)))
}
