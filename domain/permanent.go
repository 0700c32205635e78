package domain

import (
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Permanent reports an error no retry mends: SQLSTATE class 42 (an
// undefined table or column, insufficient privilege) or 3F (no such
// schema), a database that does not match the code. Anything else (an
// outage, a dropped connection, a cancelled or timed-out statement) may
// pass: background workers retry those and stop on these, returning them.
// It lives in the base so that the workers (events, events/webhook) ask it
// without importing storage.
func Permanent(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && (strings.HasPrefix(pg.Code, "42") || strings.HasPrefix(pg.Code, "3F"))
}
