package domain

import (
	"context"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// Classify knows a refused connection without storage being linked in (this
// test binary does not import it): no package has to install anything first.
func TestClassifyKnowsARefusedConnection(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now: the connection is refused
	_, err = pgconn.Connect(context.Background(), "postgres://haulgraph@"+addr+"/haulgraph?sslmode=disable&connect_timeout=5")
	if err == nil {
		t.Fatal("connected to a closed port")
	}
	if !errors.Is(Classify(err), ErrUnavailable) || CodeOf(err) != CodeUnavailable {
		t.Errorf("%v is not classified as the database being unavailable", err)
	}
	if got := Classify(errors.New("syntax error at or near SELEC")); errors.Is(got, ErrUnavailable) {
		t.Error("a statement error is classified as an outage")
	}
}

// lostSocket is an error that marks itself as the database's, as storage's
// ConnectionLost does.
type lostSocket struct{ unreachable bool }

func (e lostSocket) Error() string             { return "read: connection reset by peer" }
func (e lostSocket) DatabaseUnreachable() bool { return e.unreachable }

// An error that says it is the database's absence is classified as one
// without domain knowing its type; one that says it is not stays a failure.
func TestClassifyKnowsAMarkedLostConnection(t *testing.T) {
	t.Parallel()
	if err := fmt.Errorf("query: %w", lostSocket{true}); !Unreachable(err) || !errors.Is(Classify(err), ErrUnavailable) {
		t.Errorf("%v is not classified as the database being unavailable", err)
	}
	if err := (lostSocket{false}); Unreachable(err) {
		t.Errorf("%v is classified as an outage", err)
	}
}
