package storage

import (
	"time"

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

// HealthCheckPeriod is how often the pool closes its idle connections that
// no longer answer (pgxpool's default is a minute). After a failover the
// idle connections to the lost primary go at the next check, and new ones
// reach whichever host of DATABASE_URL now accepts writes.
func HealthCheckPeriod(d time.Duration) Option {
	return func(cfg *pgxpool.Config) { cfg.HealthCheckPeriod = d }
}
