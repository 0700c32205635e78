package telemetry_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/telemetry"
)

func env(vars map[string]string) func(string) string { return func(k string) string { return vars[k] } }

// Off by default; on with an endpoint; bad values are named.
func TestFromEnv(t *testing.T) {
	t.Parallel()
	c, err := telemetry.FromEnv(env(nil))
	if err != nil || c.On() {
		t.Fatalf("no variables: %+v %v, want off", c, err)
	}
	c, err = telemetry.FromEnv(env(map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_BSP_SCHEDULE_DELAY": "20"}))
	if err != nil || !c.On() || c.BatchDelay.Milliseconds() != 20 {
		t.Fatalf("endpoint: %+v %v, want on with a 20ms delay", c, err)
	}
	for _, off := range []map[string]string{
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_SDK_DISABLED": "true"},
		{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_TRACES_EXPORTER": "none"},
	} {
		if c, err := telemetry.FromEnv(env(off)); err != nil || c.On() {
			t.Errorf("%v: %+v %v, want off", off, c, err)
		}
	}
	for bad, names := range map[string]map[string]string{
		"OTEL_SDK_DISABLED":           {"OTEL_SDK_DISABLED": "maybe"},
		"OTEL_BSP_SCHEDULE_DELAY":     {"OTEL_BSP_SCHEDULE_DELAY": "5s"},
		"OTEL_TRACES_SAMPLER":         {"OTEL_TRACES_SAMPLER": "sometimes"},
		"OTEL_TRACES_SAMPLER_ARG":     {"OTEL_TRACES_SAMPLER": "traceidratio", "OTEL_TRACES_SAMPLER_ARG": "2"},
		"OTEL_EXPORTER_OTLP_PROTOCOL": {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
		"OTLP endpoint":               {"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "127.0.0.1:4318"},
	} {
		if _, err := telemetry.FromEnv(env(names)); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%v: %v, want an error naming %s", names, err, bad)
		}
	}
	tr, err := telemetry.New(context.Background(), telemetry.Config{}, "")
	if err != nil || tr.On() || tr.Shutdown(context.Background()) != nil {
		t.Fatalf("off: %v", err)
	}
	if _, span := tr.Tracer.Start(context.Background(), "x"); span.IsRecording() {
		t.Error("the tracer of tracing off records")
	}
}

func TestStatementName(t *testing.T) {
	t.Parallel()
	for sql, want := range map[string]string{
		"SELECT seq, id FROM events WHERE x = $1":                    "SELECT events",
		"INSERT INTO events (id) VALUES ($1)":                        "INSERT events",
		"UPDATE webhook_deliveries d SET attempt = 1":                "UPDATE webhook_deliveries",
		"WITH c AS (UPDATE webhook_deliveries d SET a = 1) SELECT 1": "WITH webhook_deliveries",
		"BEGIN":                   "BEGIN",
		"  ":                      "SQL",
		"LISTEN haulgraph_events": "LISTEN",
	} {
		if got := telemetry.StatementName(sql); got != want {
			t.Errorf("StatementName(%q) = %q, want %q", sql, got, want)
		}
	}
}

// Every query and batch of a real pool is a span named by its statement,
// child of the caller's span; no argument value appears in any span.
func TestPGTracerRecordsStatementsNotArguments(t *testing.T) {
	t.Parallel()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	tracer := tp.Tracer("test")
	db, err := storage.Open(context.Background(), dbtest.URL(t), storage.Trace(telemetry.PGTracer{Tracer: tracer}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	ctx, parent := tracer.Start(context.Background(), "request")
	const secret = "s3cret-argument-value"
	var echoed string
	if err := db.Pool.QueryRow(ctx, "SELECT $1::text", secret).Scan(&echoed); err != nil || echoed != secret {
		t.Fatalf("query: %v", err)
	}
	b := &pgx.Batch{}
	b.Queue("SELECT length($1::text)", secret)
	b.Queue("SELECT 1")
	if err := db.Pool.SendBatch(ctx, b).Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, "SELECT nope FROM nowhere WHERE x = $1", secret); err == nil {
		t.Fatal("a failing statement succeeded")
	}
	parent.End()
	names := map[string]bool{}
	for _, s := range rec.Ended() {
		names[s.Name()] = true
		if s.Name() != "request" && s.Parent().SpanID() != parent.SpanContext().SpanID() {
			t.Errorf("span %q is not the caller's child", s.Name())
		}
		if s.Name() != "request" && s.SpanKind() != trace.SpanKindClient {
			t.Errorf("span %q kind %v", s.Name(), s.SpanKind())
		}
		var all bytes.Buffer
		for _, a := range s.Attributes() {
			all.WriteString(a.Value.Emit())
		}
		for _, e := range s.Events() {
			for _, a := range e.Attributes {
				all.WriteString(a.Value.Emit())
			}
		}
		all.WriteString(s.Status().Description)
		if strings.Contains(all.String(), secret) {
			t.Errorf("span %q holds an argument: %s", s.Name(), all.String())
		}
	}
	for _, want := range []string{"SELECT", "BATCH SELECT", "SELECT nowhere"} {
		if !names[want] {
			t.Errorf("no span %q among %v", want, names)
		}
	}
}

// Log lines with a span's context carry its trace id; those with only the
// request's id carry it; a line naming trace_id keeps its own.
func TestLogHandlerAddsTraceID(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	log := slog.New(telemetry.LogHandler(slog.NewTextHandler(&buf, nil), func(ctx context.Context) string {
		id, _ := ctx.Value("id").(string)
		return id
	}))
	tp := sdktrace.NewTracerProvider()
	ctx, span := tp.Tracer("test").Start(context.Background(), "x")
	defer span.End()
	log.InfoContext(ctx, "with span")
	log.InfoContext(context.WithValue(context.Background(), "id", "abc"), "with id") //nolint:staticcheck
	log.InfoContext(ctx, "named", "trace_id", "own")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 || !strings.Contains(lines[0], "trace_id="+span.SpanContext().TraceID().String()) ||
		!strings.Contains(lines[1], "trace_id=abc") || strings.Count(lines[2], "trace_id=") != 1 {
		t.Fatalf("log:\n%s", buf.String())
	}
}
