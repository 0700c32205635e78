package storage_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// A server that accepts and never answers cannot hold a connection attempt
// past ConnectTimeout, and the failure is classified as unreachable.
func TestConnectTimeoutBoundsASilentServer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() { // owned: ends when ln closes
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
		close(accepted)
	}()
	// The caller's own deadline is far later: the attempt must end by the
	// connect timeout, with the caller's context still live.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	db, err := storage.Open(ctx, "postgres://haulgraph@"+ln.Addr().String()+"/haulgraph?sslmode=disable",
		storage.ConnectTimeout(300*time.Millisecond))
	if err == nil {
		db.Close()
		t.Fatal("connected to a silent server")
	}
	if ctx.Err() != nil {
		t.Errorf("the attempt outlived the caller's deadline instead of ending at the 300ms connect timeout")
	}
	if !domain.Unreachable(err) || !errors.Is(domain.Classify(err), domain.ErrUnavailable) {
		t.Errorf("%v is not classified as unreachable", err)
	}
	ln.Close()
	for c := range accepted {
		c.Close()
	}
}

// Statement errors and the caller's own cancellation are not outages.
func TestUnreachableIsOnlyTheDatabase(t *testing.T) {
	t.Parallel()
	for _, err := range []error{errors.New("syntax error at or near SELEC"), context.Canceled, context.DeadlineExceeded,
		&net.OpError{Op: "dial", Net: "tcp", Err: errors.New("connection refused")}} {
		if domain.Unreachable(err) {
			t.Errorf("%v classified as the database being unreachable", err)
		}
	}
}

// A connection cut while the server works on a statement (the primary lost
// mid-answer) fails the statement as unreachable: the driver returns the
// socket's error bare, and storage marks it as the database's.
func TestConnectionCutUnderAStatementIsUnreachable(t *testing.T) {
	t.Parallel()
	direct := dbtest.URL(t)
	cfg, err := pgconn.ParseConfig(direct)
	if err != nil {
		t.Fatal(err)
	}
	network, addr := "tcp", net.JoinHostPort(cfg.Host, fmt.Sprint(cfg.Port))
	if strings.HasPrefix(cfg.Host, "/") {
		network, addr = "unix", fmt.Sprintf("%s/.s.PGSQL.%d", cfg.Host, cfg.Port)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		conns []net.Conn
		pipes sync.WaitGroup
	)
	pipes.Add(1)
	go func() { // owned: ends when ln closes; its pipes end when cut
		defer pipes.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial(network, addr)
			if err != nil {
				c.Close()
				continue
			}
			mu.Lock()
			conns = append(conns, c, up)
			mu.Unlock()
			pipes.Add(2)
			go func() { defer pipes.Done(); _, _ = io.Copy(up, c); up.Close() }()
			go func() { defer pipes.Done(); _, _ = io.Copy(c, up); c.Close() }()
		}
	}()
	cut := func() {
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}
	t.Cleanup(func() { ln.Close(); cut(); pipes.Wait() })

	u := url.URL{Scheme: "postgres", User: url.User(cfg.User), Host: ln.Addr().String(), Path: "/" + cfg.Database, RawQuery: "sslmode=disable"}
	db, err := storage.Open(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	watch, err := pgx.Connect(context.Background(), direct)
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close(context.Background())

	failed := make(chan error, 1)
	go func() {
		// A batch in a transaction, as the writes send theirs.
		failed <- pgx.BeginFunc(context.Background(), db.Pool, func(tx pgx.Tx) error {
			b := &pgx.Batch{}
			b.Queue("SELECT pg_sleep($1::int)", 60)
			return tx.SendBatch(context.Background(), b).Close()
		})
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var running bool
		if err := watch.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND state = 'active' AND query = 'SELECT pg_sleep($1::int)')`).Scan(&running); err != nil {
			t.Fatal(err)
		}
		if running {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the statement never started")
		}
	}
	cut()
	err = <-failed
	if err == nil || !domain.Unreachable(err) || !errors.Is(domain.Classify(err), domain.ErrUnavailable) {
		t.Errorf("a statement whose connection was cut failed with %v (%T), not as unreachable", err, err)
	}
	if _, err := watch.Exec(context.Background(), `SELECT pg_cancel_backend(pid) FROM pg_stat_activity
		WHERE datname = current_database() AND query = 'SELECT pg_sleep($1::int)'`); err != nil {
		t.Fatal(err)
	}
}
