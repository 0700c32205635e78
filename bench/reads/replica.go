package main

import (
	"context"
	"errors"
	"time"

	"github.com/haulgraph/haulgraph/app"
)

// replicaInstance starts a second instance of the same configuration that
// reads from a replica (the routing's cost against the first, which reads
// from the primary) and waits until its health check finds the replica
// usable; stop ends it.
func replicaInstance(ctx context.Context, cfg app.Config, replicaURL string) (instance, func(), error) {
	cfg.ReplicaURLs = []string{replicaURL}
	in, stop, err := secondInstance(ctx, cfg)
	if err != nil {
		return instance{}, nil, err
	}
	deadline := time.Now().Add(30 * time.Second)
	for h := in.app.ReplicasHealthy(); len(h) == 0 || !h[0]; h = in.app.ReplicasHealthy() {
		if time.Now().After(deadline) {
			stop()
			return instance{}, nil, errors.New("-replica: the replica is not usable (a streaming standby within HAULGRAPH_REPLICA_MAX_LAG?)")
		}
		time.Sleep(50 * time.Millisecond)
	}
	return in, stop, nil
}
