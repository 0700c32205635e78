package app_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// A worker that fails stops Run, which returns its error (the process then
// exits instead of serving subscriptions no event reaches). The relay fails
// for good when the outbox it tails is gone.
func TestRunReturnsAWorkersError(t *testing.T) {
	t.Parallel()
	url := dbtest.URL(t)
	a, err := app.New(context.Background(), app.Config{DatabaseURL: url, Audience: app.DefaultAudience, PublicURL: "http://127.0.0.1",
		BlobURL: "file://" + t.TempDir(), EncryptionKey: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", TokenTTL: time.Hour},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.DB.Pool.Exec(context.Background(), `ALTER TABLE events RENAME TO events_elsewhere`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = a.Run(ctx)
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "42P01" {
		t.Fatalf("Run returned %v, want the relay's undefined table", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Run returned only at its deadline")
	}
}

// Run returns nil when its context ends: stopping is not a failure.
func TestRunReturnsNilWhenStopped(t *testing.T) {
	t.Parallel()
	a, err := app.New(context.Background(), app.Config{DatabaseURL: dbtest.URL(t), Audience: app.DefaultAudience, PublicURL: "http://127.0.0.1",
		BlobURL: "file://" + t.TempDir(), EncryptionKey: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", TokenTTL: time.Hour},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	<-a.Events.Relay.Ready()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run after its context ended: %v", err)
	}
}

// The webhook workers stop the same way: with the deliveries table gone
// (a database that does not match the code), the dispatcher and the
// delivery loops return the error instead of logging it forever, and Run
// returns it.
func TestRunReturnsAWebhookWorkersError(t *testing.T) {
	t.Parallel()
	a, err := app.New(context.Background(), app.Config{DatabaseURL: dbtest.URL(t), Audience: app.DefaultAudience, PublicURL: "http://127.0.0.1",
		BlobURL: "file://" + t.TempDir(), EncryptionKey: "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", TokenTTL: time.Hour},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.DB.Pool.Exec(context.Background(), `ALTER TABLE webhook_deliveries RENAME TO webhook_deliveries_elsewhere`); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = a.Run(ctx)
	var pg *pgconn.PgError
	if !errors.As(err, &pg) || pg.Code != "42P01" {
		t.Fatalf("Run returned %v, want the webhook workers' undefined table", err)
	}
	if ctx.Err() != nil {
		t.Fatal("Run returned only at its deadline")
	}
}
