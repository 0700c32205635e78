package events_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/events"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/pgcluster"
)

// With asynchronous replication a promoted standby may lack transactions
// the lost primary had committed, and whose events this instance's relay
// had published. Reconnecting, the relay finds its last event missing and
// stops with ErrOutboxLost instead of tailing from a position the new
// primary does not have.
func TestRelayStopsWhenTheDatabaseLostWhatItPublished(t *testing.T) {
	t.Parallel()
	cluster := pgcluster.Start(t, pgcluster.Options{Standbys: 1})
	primary, standby := cluster.Primary(), cluster.Standby(1)
	var hosts []string
	for _, n := range []*pgcluster.Node{primary, standby} {
		cfg, err := pgconn.ParseConfig(n.URL(""))
		if err != nil {
			t.Fatal(err)
		}
		hosts = append(hosts, cfg.Host)
	}
	ctx := context.Background()
	db, err := storage.Open(ctx, "postgres://postgres@/"+pgcluster.Database+"?"+url.Values{"host": {strings.Join(hosts, ",")},
		"sslmode": {"disable"}, "target_session_attrs": {"read-write"}}.Encode(), storage.ConnectTimeout(2*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tenant, sub := newTenant(t, db, "lost")
	hub := events.NewHub()
	relay := &events.Relay{Outbox: &storage.Outbox{DB: db}, Hub: hub, Poll: 50 * time.Millisecond, Retry: 20 * time.Millisecond,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	runCtx, cancel := context.WithCancel(ctx)
	var runErr error
	ran := make(chan struct{})
	go func() { defer close(ran); runErr = relay.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-ran })
	ch, subscription := subscribe(hub, tenant)
	defer subscription.Close()
	svc := &loads.Writes{Store: &storage.LoadWrites{DB: db}}
	caller := domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenant, Scopes: []domain.Scope{domain.ScopeLoadCreate}})
	create := func(n string) {
		t.Helper()
		if _, err := svc.CreateLoad(caller, loads.Input{LoadNumber: n, SubsidiaryID: sub.String(), Stops: []loads.StopInput{{Type: "Pickup"}}}); err != nil {
			t.Fatal(err)
		}
	}
	<-relay.Ready()
	create("streamed")
	if ev := receive(t, ch); ev.Data.Load.LoadNumber != "streamed" {
		t.Fatalf("first event: %+v", ev.Data.Load)
	}
	standby.WaitReplay(30 * time.Second)
	standby.Stop() // what follows never reaches it
	create("lost")
	if ev := receive(t, ch); ev.Data.Load.LoadNumber != "lost" {
		t.Fatalf("second event: %+v", ev.Data.Load)
	}
	primary.Stop()
	standby.Start()
	standby.Promote()
	select {
	case <-ran:
		if !errors.Is(runErr, events.ErrOutboxLost) {
			t.Fatalf("the relay ended with %v, want ErrOutboxLost", runErr)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the relay still runs on a database that lost what it published")
	}
}
