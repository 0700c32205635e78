package main

import (
	"context"
	"io"
	"log/slog"
	"net"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/storage"
)

// instance is a second HaulGraph of the benchmark (through another
// database path, or traced) beside the first: same public URL, so the
// first instance's tokens are good on it.
type instance struct {
	app   *app.App
	url   string
	trips *storage.RoundTrips
}

// secondInstance starts an instance of cfg on a free port of 127.0.0.1,
// with its workers, counting its round trips; stop ends its server and
// workers and waits for them.
func secondInstance(ctx context.Context, cfg app.Config) (instance, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return instance{}, nil, err
	}
	cfg.Addr, cfg.AdminAddr = ln.Addr().String(), ""
	in := instance{url: "http://" + cfg.Addr, trips: &storage.RoundTrips{}}
	cfg.DBRoundTrips = in.trips
	in.app, err = app.New(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		_ = ln.Close()
		return instance{}, nil, err
	}
	workers, stopWorkers := context.WithCancel(ctx)
	workersDone := make(chan struct{})
	go func() { defer close(workersDone); _ = in.app.Run(workers) }()
	srv := in.app.NewServer()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(in.app.Listener(ln)) }()
	return in, func() {
		_ = srv.Close()
		<-served
		stopWorkers()
		<-workersDone
		in.app.Close() // a traced instance exports what is left here
	}, nil
}
