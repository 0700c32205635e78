package storage

import (
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/multitracer"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DefaultConnectTimeout bounds one connection attempt when neither
// HAULGRAPH_DB_CONNECT_TIMEOUT nor the URL's connect_timeout says otherwise.
const DefaultConnectTimeout = 5 * time.Second

// ConnectTimeout bounds each connection attempt of the pool, so that a
// request during an outage fails within d instead of waiting on the
// kernel's TCP timeout.
func ConnectTimeout(d time.Duration) Option {
	return func(cfg *pgxpool.Config) { cfg.ConnConfig.ConnectTimeout = d }
}

// Trace hands every statement of the pool to t (telemetry.PGTracer), after
// any tracer an earlier option set.
func Trace(t pgx.QueryTracer) Option {
	return func(cfg *pgxpool.Config) {
		if cfg.ConnConfig.Tracer != nil {
			t = multitracer.New(cfg.ConnConfig.Tracer, t)
		}
		cfg.ConnConfig.Tracer = t
	}
}
