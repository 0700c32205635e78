// Package dbtest gives each test a fresh, migrated PostgreSQL database on the
// server named by DATABASE_URL (make test starts a private one).
package dbtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/storage"
)

// URL returns the URL of a new, empty database, dropped when the test ends.
func URL(t testing.TB) string {
	t.Helper()
	base := os.Getenv("DATABASE_URL")
	if base == "" {
		t.Fatal("DATABASE_URL is not set: run the tests with `make test`")
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("dbtest: connect: %v", err)
	}
	defer admin.Close(ctx)

	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "hg_test_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("dbtest: create database: %v", err)
	}
	t.Cleanup(func() {
		c, err := pgx.Connect(context.Background(), base)
		if err != nil {
			return
		}
		defer c.Close(context.Background())
		_, _ = c.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("dbtest: parse DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// New opens a fresh database with every migration applied.
func New(t testing.TB) *storage.DB {
	t.Helper()
	db, err := storage.Open(context.Background(), URL(t))
	if err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	t.Cleanup(db.Close)
	if err := db.Migrate(context.Background()); err != nil {
		t.Fatalf("dbtest: %v", err)
	}
	return db
}

// WaitOutboxFinal waits (up to 10 s) until every event committed so far is
// final, i.e. readable by storage.Outbox: outbox readers wait for every older
// transaction on the server to end, and the server is shared by other tests'
// databases.
func WaitOutboxFinal(t testing.TB, db *storage.DB) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var held bool
		err := db.Pool.QueryRow(context.Background(),
			"SELECT EXISTS (SELECT 1 FROM events WHERE xact >= pg_snapshot_xmin(pg_current_snapshot()))").Scan(&held)
		if err != nil {
			t.Fatalf("dbtest: %v", err)
		}
		if !held {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("dbtest: outbox events not final after 10 s: a transaction stays open")
		}
		time.Sleep(time.Millisecond) // polling the server's horizon
	}
}
