package main

import (
	"context"
	"net"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/bench/benchkit"
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
	cfg.AdminAddr = ""
	in := instance{url: "http://" + ln.Addr().String(), trips: &storage.RoundTrips{}}
	cfg.DBRoundTrips = in.trips
	a, stop, err := benchkit.Serve(ctx, cfg, ln)
	if err != nil {
		return instance{}, nil, err
	}
	in.app = a
	return in, stop, nil
}
