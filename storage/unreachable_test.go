package storage_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
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
	start := time.Now()
	db, err := storage.Open(context.Background(), "postgres://haulgraph@"+ln.Addr().String()+"/haulgraph?sslmode=disable",
		storage.ConnectTimeout(300*time.Millisecond))
	elapsed := time.Since(start)
	if err == nil {
		db.Close()
		t.Fatal("connected to a silent server")
	}
	if elapsed > 3*time.Second {
		t.Errorf("the attempt took %v with a 300ms connect timeout", elapsed)
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
