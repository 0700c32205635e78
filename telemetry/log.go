package telemetry

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"
)

// TraceIDFunc finds the trace id of a context when no span holds one
// (domain.TraceIDFrom: the id httpedge.Observer starts with tracing off).
type TraceIDFunc func(context.Context) string

// LogHandler adds trace_id (and span_id, when a span is recording) to every
// record logged with a context that carries them, unless the record names
// trace_id itself.
func LogHandler(h slog.Handler, fallback TraceIDFunc) slog.Handler {
	return traceHandler{Handler: h, fallback: fallback}
}

type traceHandler struct {
	slog.Handler
	fallback TraceIDFunc
}

func (h traceHandler) Handle(ctx context.Context, r slog.Record) error {
	if ctx == nil {
		return h.Handler.Handle(ctx, r)
	}
	named := false
	r.Attrs(func(a slog.Attr) bool {
		named = a.Key == "trace_id" || a.Key == "traceId"
		return !named
	})
	if !named {
		if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
			r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
		} else if h.fallback != nil {
			if id := h.fallback(ctx); id != "" {
				r.AddAttrs(slog.String("trace_id", id))
			}
		}
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return traceHandler{Handler: h.Handler.WithAttrs(as), fallback: h.fallback}
}

func (h traceHandler) WithGroup(name string) slog.Handler {
	return traceHandler{Handler: h.Handler.WithGroup(name), fallback: h.fallback}
}
