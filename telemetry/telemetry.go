// Package telemetry builds the instance's OpenTelemetry tracing from the
// standard OTEL_* settings: off unless an OTLP endpoint is given, in which
// case spans go to it over OTLP/HTTP protobuf in batches. It also holds the
// PostgreSQL tracer (pgx.go) and the log handler that stamps trace ids
// (log.go).
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Name is the instrumentation scope of every span HaulGraph starts.
const Name = "github.com/haulgraph/haulgraph"

// Config is what the OTEL_* variables say (app/config.go reads them). The
// exporter reads the variables this leaves out (OTEL_EXPORTER_OTLP_HEADERS,
// _TIMEOUT, _COMPRESSION, _CERTIFICATE and their _TRACES_ forms) itself.
type Config struct {
	Disabled       bool   // OTEL_SDK_DISABLED=true
	Exporter       string // OTEL_TRACES_EXPORTER: "otlp" (default) or "none"
	Endpoint       string // OTEL_EXPORTER_OTLP_ENDPOINT: base URL, /v1/traces is appended
	TracesEndpoint string // OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: the full URL
	Protocol       string // OTEL_EXPORTER_OTLP_(TRACES_)PROTOCOL: only http/protobuf
	ServiceName    string // OTEL_SERVICE_NAME (default haulgraph)
	Sampler        string // OTEL_TRACES_SAMPLER (default parentbased_always_on)
	SamplerArg     string // OTEL_TRACES_SAMPLER_ARG
	// BatchDelay is OTEL_BSP_SCHEDULE_DELAY (milliseconds; default 5000).
	BatchDelay time.Duration
}

// FromEnv reads the OTEL_* variables through getenv (os.Getenv).
func FromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		Exporter:       getenv("OTEL_TRACES_EXPORTER"),
		Endpoint:       getenv("OTEL_EXPORTER_OTLP_ENDPOINT"),
		TracesEndpoint: getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
		Protocol:       getenv("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
		ServiceName:    getenv("OTEL_SERVICE_NAME"),
		Sampler:        getenv("OTEL_TRACES_SAMPLER"),
		SamplerArg:     getenv("OTEL_TRACES_SAMPLER_ARG"),
	}
	if c.Protocol == "" {
		c.Protocol = getenv("OTEL_EXPORTER_OTLP_PROTOCOL")
	}
	if v := getenv("OTEL_SDK_DISABLED"); v != "" {
		d, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("OTEL_SDK_DISABLED: %q is not a boolean", v)
		}
		c.Disabled = d
	}
	if v := getenv("OTEL_BSP_SCHEDULE_DELAY"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms < 0 {
			return c, fmt.Errorf("OTEL_BSP_SCHEDULE_DELAY: %q is not a number of milliseconds", v)
		}
		c.BatchDelay = time.Duration(ms) * time.Millisecond
	}
	_, err := c.sampler()
	if err == nil {
		_, err = c.endpoint()
	}
	return c, err
}

// On reports whether c exports spans.
func (c Config) On() bool {
	return !c.Disabled && c.Exporter != "none" && (c.Endpoint != "" || c.TracesEndpoint != "")
}

// endpoint is the URL spans are posted to.
func (c Config) endpoint() (string, error) {
	if !c.On() {
		return "", nil
	}
	switch c.Protocol {
	case "", "http/protobuf":
	default:
		return "", fmt.Errorf("OTEL_EXPORTER_OTLP_PROTOCOL: %q is not supported; use http/protobuf", c.Protocol)
	}
	if c.Exporter != "" && c.Exporter != "otlp" {
		return "", fmt.Errorf("OTEL_TRACES_EXPORTER: %q is not supported; use otlp or none", c.Exporter)
	}
	raw := c.TracesEndpoint
	if raw == "" {
		raw = strings.TrimSuffix(c.Endpoint, "/") + "/v1/traces"
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("OTLP endpoint: %q is not an http(s) URL", raw)
	}
	return raw, nil
}

func (c Config) sampler() (sdktrace.Sampler, error) {
	ratio := 1.0
	if c.SamplerArg != "" && strings.HasSuffix(c.Sampler, "traceidratio") {
		r, err := strconv.ParseFloat(c.SamplerArg, 64)
		if err != nil || r < 0 || r > 1 {
			return nil, fmt.Errorf("OTEL_TRACES_SAMPLER_ARG: %q is not a ratio between 0 and 1", c.SamplerArg)
		}
		ratio = r
	}
	switch c.Sampler {
	case "", "parentbased_always_on":
		return sdktrace.ParentBased(sdktrace.AlwaysSample()), nil
	case "always_on":
		return sdktrace.AlwaysSample(), nil
	case "always_off":
		return sdktrace.NeverSample(), nil
	case "traceidratio":
		return sdktrace.TraceIDRatioBased(ratio), nil
	case "parentbased_always_off":
		return sdktrace.ParentBased(sdktrace.NeverSample()), nil
	case "parentbased_traceidratio":
		return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio)), nil
	}
	return nil, fmt.Errorf("OTEL_TRACES_SAMPLER: %q is not supported", c.Sampler)
}

// Tracing is the instance's tracer: a no-op one when tracing is off, which
// starts no goroutine and records nothing.
type Tracing struct {
	// Tracer starts spans; Propagator reads and writes W3C traceparent.
	Tracer     trace.Tracer
	Propagator propagation.TextMapPropagator
	provider   *sdktrace.TracerProvider // nil when off
}

// Off is tracing switched off.
func Off() *Tracing {
	return &Tracing{Tracer: noop.NewTracerProvider().Tracer(Name), Propagator: propagation.TraceContext{}}
}

// New builds the tracing c asks for. When it is on, Shutdown must be
// called: it stops the batch exporter's goroutine after a last export.
func New(ctx context.Context, c Config, version string) (*Tracing, error) {
	if !c.On() {
		return Off(), nil
	}
	endpoint, err := c.endpoint()
	if err != nil {
		return nil, err
	}
	sampler, err := c.sampler()
	if err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(ctx, otlptracehttp.WithEndpointURL(endpoint))
	if err != nil {
		return nil, fmt.Errorf("OTLP exporter: %w", err)
	}
	name := c.ServiceName
	if name == "" {
		name = "haulgraph"
	}
	// OTEL_RESOURCE_ATTRIBUTES is read by resource.WithFromEnv; the service
	// name set here wins over it, as OTEL_SERVICE_NAME does.
	attrs := []attribute.KeyValue{attribute.String("service.name", name)}
	if version != "" {
		attrs = append(attrs, attribute.String("service.version", version))
	}
	res, err := resource.New(ctx, resource.WithFromEnv(), resource.WithTelemetrySDK(), resource.WithHost(), resource.WithAttributes(attrs...))
	if err != nil && !errors.Is(err, resource.ErrPartialResource) {
		return nil, fmt.Errorf("trace resource: %w", err)
	}
	var batch []sdktrace.BatchSpanProcessorOption
	if c.BatchDelay > 0 {
		batch = append(batch, sdktrace.WithBatchTimeout(c.BatchDelay))
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp, batch...), sdktrace.WithResource(res), sdktrace.WithSampler(sampler))
	return &Tracing{Tracer: tp.Tracer(Name), Propagator: propagation.TraceContext{}, provider: tp}, nil
}

// On reports whether spans are recorded and exported.
func (t *Tracing) On() bool { return t != nil && t.provider != nil }

// Shutdown exports what is left and stops the exporter; ctx bounds it.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if !t.On() {
		return nil
	}
	return t.provider.Shutdown(ctx)
}

// Remote is ctx with the remote span context a W3C traceparent names as its
// parent (ctx unchanged when tp is not a valid one).
func Remote(ctx context.Context, tp string) context.Context {
	if tp == "" {
		return ctx
	}
	return propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier{"traceparent": tp})
}
