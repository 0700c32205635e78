package metrics

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/haulgraph/haulgraph/storage"
)

// ScrapeTimeout bounds the database reads one scrape makes.
const ScrapeTimeout = 2 * time.Second

// Database is what the scrape reads of the database: storage.DB.
type Database interface {
	Ping(ctx context.Context) error
	OutboxLag(ctx context.Context) (storage.OutboxLag, error)
	DeliveryBacklog(ctx context.Context) (pending, failed int64, err error)
}

// WatchDatabase adds the pool's statistics, whether the database answers,
// the webhook dispatcher's lag behind the outbox and the delivery backlog,
// all read when scraped (bounded by ScrapeTimeout), and the number of
// open subscriptions (a gauge over subscriptions()).
func (m *Metrics) WatchDatabase(pool *pgxpool.Pool, db Database, subscriptions func() int64) {
	m.Registry.MustRegister(&dbCollector{pool: pool, db: db}, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "haulgraph_subscriptions_open",
		Help: "Live GraphQL subscriptions (WebSocket and SSE) on this instance.",
	}, func() float64 { return float64(subscriptions()) }))
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

var (
	dbUp           = desc("haulgraph_database_up", "1 when PostgreSQL answered the scrape's ping within the scrape timeout, else 0.")
	poolAcquired   = desc("haulgraph_db_pool_acquired_connections", "Pool connections in use.")
	poolIdle       = desc("haulgraph_db_pool_idle_connections", "Pool connections idle.")
	poolTotal      = desc("haulgraph_db_pool_connections", "Pool connections open (in use, idle or being made).")
	poolMax        = desc("haulgraph_db_pool_max_connections", "The pool's maximum size.")
	poolAcquires   = desc("haulgraph_db_pool_acquires_total", "Connections acquired from the pool.")
	poolWaited     = desc("haulgraph_db_pool_empty_acquires_total", "Acquires that had to wait for a connection.")
	poolWaitTime   = desc("haulgraph_db_pool_empty_acquire_wait_seconds_total", "Time spent waiting for a connection by acquires that had to wait.")
	poolCanceled   = desc("haulgraph_db_pool_canceled_acquires_total", "Acquires given up by their caller.")
	poolNew        = desc("haulgraph_db_pool_new_connections_total", "Connections the pool opened.")
	outboxEvents   = desc("haulgraph_outbox_pending_events", "Outbox events the webhook dispatcher has not consumed yet (counted up to "+strconv.Itoa(storage.MaxOutboxLagCount)+").")
	outboxAge      = desc("haulgraph_outbox_oldest_pending_age_seconds", "Age of the oldest outbox event the webhook dispatcher has not consumed; 0 when none.")
	deliveries     = desc("haulgraph_webhook_deliveries", "Webhook deliveries by status: pending (to be attempted or retried) and failed (given up).", "status")
	allDatabase    = []*prometheus.Desc{dbUp, poolAcquired, poolIdle, poolTotal, poolMax, poolAcquires, poolWaited, poolWaitTime, poolCanceled, poolNew, outboxEvents, outboxAge, deliveries}
	gauge, counter = prometheus.GaugeValue, prometheus.CounterValue
)

type dbCollector struct {
	pool *pgxpool.Pool
	db   Database
}

func (c *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDatabase {
		ch <- d
	}
}

func (c *dbCollector) Collect(ch chan<- prometheus.Metric) {
	s := c.pool.Stat()
	ch <- prometheus.MustNewConstMetric(poolAcquired, gauge, float64(s.AcquiredConns()))
	ch <- prometheus.MustNewConstMetric(poolIdle, gauge, float64(s.IdleConns()))
	ch <- prometheus.MustNewConstMetric(poolTotal, gauge, float64(s.TotalConns()))
	ch <- prometheus.MustNewConstMetric(poolMax, gauge, float64(s.MaxConns()))
	ch <- prometheus.MustNewConstMetric(poolAcquires, counter, float64(s.AcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWaited, counter, float64(s.EmptyAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolWaitTime, counter, s.EmptyAcquireWaitTime().Seconds())
	ch <- prometheus.MustNewConstMetric(poolCanceled, counter, float64(s.CanceledAcquireCount()))
	ch <- prometheus.MustNewConstMetric(poolNew, counter, float64(s.NewConnsCount()))

	ctx, cancel := context.WithTimeout(context.Background(), ScrapeTimeout)
	defer cancel()
	if err := c.db.Ping(ctx); err != nil {
		ch <- prometheus.MustNewConstMetric(dbUp, gauge, 0)
		return // the backlog cannot be read: absent rather than wrong
	}
	ch <- prometheus.MustNewConstMetric(dbUp, gauge, 1)
	if lag, err := c.db.OutboxLag(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(outboxEvents, gauge, float64(lag.Events))
		ch <- prometheus.MustNewConstMetric(outboxAge, gauge, lag.OldestAgeSeconds)
	}
	if pending, failed, err := c.db.DeliveryBacklog(ctx); err == nil {
		ch <- prometheus.MustNewConstMetric(deliveries, gauge, float64(pending), "pending")
		ch <- prometheus.MustNewConstMetric(deliveries, gauge, float64(failed), "failed")
	}
}
