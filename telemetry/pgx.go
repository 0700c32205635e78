package telemetry

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// PGTracer is a pgx QueryTracer and BatchTracer: one client span per round
// trip the application asks for (a query, or a batch with its statements),
// named by the statement ("SELECT events"), with the statement's text as
// db.query.text. Arguments are never recorded: they hold tenants' data and
// secrets, and the statements use bind parameters, so the text holds none.
type PGTracer struct{ Tracer trace.Tracer }

type pgSpanKey struct{}

var pgAttrs = []attribute.KeyValue{attribute.String("db.system.name", "postgresql")}

func (t PGTracer) start(ctx context.Context, name string, attrs ...attribute.KeyValue) context.Context {
	ctx, span := t.Tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(pgAttrs...), trace.WithAttributes(attrs...))
	return context.WithValue(ctx, pgSpanKey{}, span)
}

func end(ctx context.Context, err error) {
	span, ok := ctx.Value(pgSpanKey{}).(trace.Span)
	if !ok {
		return
	}
	if err != nil {
		span.SetStatus(codes.Error, "")
		// The error's class only: its message may quote a value.
		span.SetAttributes(attribute.String("error.type", errorType(err)))
	}
	span.End()
}

// TraceQueryStart starts the span of one query.
func (t PGTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	return t.start(ctx, StatementName(d.SQL), attribute.String("db.query.text", d.SQL))
}

// TraceQueryEnd ends it.
func (t PGTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryEndData) {
	end(ctx, d.Err)
}

// TraceBatchStart starts the span of one batch (one round trip).
func (t PGTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	n := 0
	if d.Batch != nil {
		n = d.Batch.Len()
	}
	name := "BATCH"
	if n > 0 {
		name = "BATCH " + StatementName(d.Batch.QueuedQueries[0].SQL)
	}
	return t.start(ctx, name, attribute.Int("db.operation.batch.size", n))
}

// TraceBatchQuery adds each statement's text, as an event of the batch span.
func (t PGTracer) TraceBatchQuery(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchQueryData) {
	if span, ok := ctx.Value(pgSpanKey{}).(trace.Span); ok && span.IsRecording() {
		attrs := []attribute.KeyValue{attribute.String("db.query.text", d.SQL)}
		if d.Err != nil {
			attrs = append(attrs, attribute.String("error.type", errorType(d.Err)))
		}
		span.AddEvent(StatementName(d.SQL), trace.WithAttributes(attrs...))
	}
}

// TraceBatchEnd ends the batch span.
func (t PGTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchEndData) {
	end(ctx, d.Err)
}

// StatementName is a statement's short name: its command and the first
// table it names ("INSERT events", "SELECT loads", "WITH webhook_deliveries").
func StatementName(sql string) string {
	words := strings.Fields(sql)
	if len(words) == 0 {
		return "SQL"
	}
	cmd := strings.ToUpper(words[0])
	for i, w := range words[:len(words)-1] {
		switch strings.ToUpper(strings.TrimLeft(w, "(")) {
		case "FROM", "INTO", "UPDATE", "JOIN":
			if i == 0 && cmd != "UPDATE" {
				continue
			}
			table := strings.Trim(words[i+1], "(),;")
			if table != "" && !strings.HasPrefix(table, "$") && !strings.EqualFold(table, "SELECT") && !strings.EqualFold(table, "LATERAL") {
				return cmd + " " + table
			}
		}
	}
	return cmd
}

// errorType is the SQLSTATE of a PostgreSQL error, or a generic class.
func errorType(err error) string {
	var pg *pgconn.PgError
	if errors.As(err, &pg) {
		return pg.Code
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "canceled"
	}
	return "error"
}
