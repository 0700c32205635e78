package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/storage"
)

// replicaRun is a second instance of the same configuration that reads
// from a replica: the routing's cost against the first, which reads from
// the primary.
type replicaRun struct {
	url   string
	trips *storage.RoundTrips
}

// replicaInstance starts it (same public URL, so the first instance's
// tokens are good on it) and waits until its health check finds the
// replica usable; stop ends it.
func replicaInstance(ctx context.Context, cfg app.Config, replicaURL string) (replicaRun, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return replicaRun{}, nil, err
	}
	cfg.Addr = ln.Addr().String()
	cfg.ReplicaURLs = []string{replicaURL}
	cfg.AdminAddr = ""
	trips := &storage.RoundTrips{}
	cfg.DBRoundTrips = trips
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		_ = ln.Close()
		return replicaRun{}, nil, err
	}
	workers, stopWorkers := context.WithCancel(ctx)
	workersDone := make(chan struct{})
	go func() { defer close(workersDone); _ = a.Run(workers) }()
	srv := a.NewServer()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(a.Listener(ln)) }()
	stop := func() {
		_ = srv.Close()
		<-served
		stopWorkers()
		<-workersDone
		a.Close()
	}
	deadline := time.Now().Add(30 * time.Second)
	for h := a.ReplicasHealthy(); len(h) == 0 || !h[0]; h = a.ReplicasHealthy() {
		if time.Now().After(deadline) {
			stop()
			return replicaRun{}, nil, errors.New("-replica: the replica is not usable (a streaming standby within HAULGRAPH_REPLICA_MAX_LAG?)")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return replicaRun{url: "http://" + ln.Addr().String(), trips: trips}, stop, nil
}
