package domain

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// The driver's error types are named here, not installed by storage at
// start-up: Classify is then a plain function, the same in every binary and
// test, whatever packages are linked in. domain imports the driver's error
// types only (pgconn), never a connection; storage's own mark of a broken
// socket (storage.ConnectionLost) says so by its DatabaseUnreachable method.

// Unreachable reports whether err means that PostgreSQL could not be
// reached or the connection to it broke (as opposed to a statement that
// failed): the request may succeed once the database is back. Only the
// driver's errors count: a network error of anything else (an external
// issuer's keys) is not the database's.
func Unreachable(err error) bool {
	if err == nil {
		return false
	}
	var connect *pgconn.ConnectError
	var lost interface{ DatabaseUnreachable() bool } // storage's mark of a broken socket
	var pgErr *pgconn.PgError
	var fromDriver interface{ SafeToRetry() bool } // pgconn's own error types
	var netErr net.Error
	switch {
	case errors.As(err, &lost) && lost.DatabaseUnreachable():
		return true
	case errors.As(err, &connect), errors.Is(err, pgconn.ErrConnClosed),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone):
		return true
	case errors.As(err, &pgErr):
		// Class 08 (connection exception); 57P01-57P03: the server is
		// shutting down or not accepting connections yet.
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03"
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		// The caller's own deadline or departure, not the database's absence.
		return false
	case errors.As(err, &fromDriver):
		// A broken socket under a statement: reset, refused, EOF.
		return errors.As(err, &netErr) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	}
	return false
}
