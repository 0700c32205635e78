package main

import (
	"context"
	"io"
	"log/slog"
	"net"
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
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		sink.Close()
		return "", nil, err
	}
	cfg.Addr = ln.Addr().String()
	cfg.Tracing = telemetry.Config{Endpoint: sink.URL}
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		ln.Close()
		sink.Close()
		return "", nil, err
	}
	srv := a.NewServer()
	served := make(chan struct{})
	go func() { defer close(served); _ = srv.Serve(a.Listener(ln)) }()
	return "http://" + ln.Addr().String(), func() {
		_ = srv.Close()
		<-served
		a.Close() // exports what is left, then the sink may go
		sink.Close()
	}, nil
}
