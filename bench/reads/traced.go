package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/telemetry"
)

// tracedInstance starts a second instance on the same database with tracing
// on, exporting every span (batched, the SDK's defaults) over OTLP/HTTP to
// a local sink that reads and drops them; it answers tokens of the first
// (same issuer URL). It returns its base URL.
func tracedInstance(ctx context.Context, cfg app.Config) (string, func(), error) {
	sink := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	cfg.Tracing = telemetry.Config{Endpoint: sink.URL}
	in, stop, err := secondInstance(ctx, cfg)
	if err != nil {
		sink.Close()
		return "", nil, err
	}
	return in.url, func() {
		stop() // exports what is left, then the sink may go
		sink.Close()
	}, nil
}
