package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/haulgraph/haulgraph/admin"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/board"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/graph/transport"
	"github.com/haulgraph/haulgraph/metrics"
	"github.com/haulgraph/haulgraph/respcache"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/telemetry"
)

// App is one running instance of HaulGraph.
type App struct {
	Config  Config
	DB      *storage.DB
	Log     *slog.Logger
	handler http.Handler
	// Documents is the document service (uploads, signed links).
	Documents *documents.Service
	closers   []func()
	// closing is closed by GoingAway: WebSockets end with 1001.
	closing     chan struct{}
	closingOnce sync.Once
	// draining is closed when a stop begins (Serve): /readyz answers 503
	// and answers carry Connection: close.
	draining     chan struct{}
	drainingOnce sync.Once

	// Auth issues and verifies tokens; transports wrap with Auth.Middleware.
	Auth *auth.Service
	// Events is the event bus: load writes, outbox relay, subscription hub.
	Events *Events
	// GraphQL is the /graphql endpoint (add transports to GraphQL.Server).
	GraphQL *transport.Endpoint
	// Webhooks is webhook management and delivery (app/webhooks.go).
	Webhooks webhookParts
	// Metrics is the instance's registry, served by AdminHandler.
	Metrics *metrics.Metrics
	admin   http.Handler
	// Tracing is the instance's tracer (no-op when off); Close flushes it.
	Tracing *telemetry.Tracing
	// Cache is the response cache (nil: off).
	Cache *respcache.Cache
	// replicas takes read-only work (nil: none configured).
	replicas *storage.Replicas
}

// New opens the database, applies migrations and assembles the handler.
func New(ctx context.Context, cfg Config, log *slog.Logger) (*App, error) {
	cfg, err := withEncryptionKey(cfg)
	if err != nil {
		return nil, err
	}
	connectTimeout := cfg.DBConnectTimeout
	if connectTimeout <= 0 {
		connectTimeout = storage.DefaultConnectTimeout
	}
	tracing, err := telemetry.New(ctx, cfg.Tracing, "")
	if err != nil {
		return nil, err
	}
	built := false
	defer func() {
		if !built { // the exporter's goroutine ends with New's failure
			_ = tracing.Shutdown(context.WithoutCancel(ctx))
		}
	}()
	log = slog.New(telemetry.LogHandler(log.Handler(), domain.TraceIDFrom))
	dbOpts := []storage.Option{storage.ConnectTimeout(connectTimeout)}
	if cfg.DBHealthCheckPeriod > 0 {
		dbOpts = append(dbOpts, storage.HealthCheckPeriod(cfg.DBHealthCheckPeriod))
	}
	if cfg.DBRoundTrips != nil {
		dbOpts = append(dbOpts, storage.CountRoundTrips(cfg.DBRoundTrips))
	}
	if tracing.On() {
		dbOpts = append(dbOpts, storage.Trace(telemetry.PGTracer{Tracer: tracing.Tracer}))
	}
	db, err := storage.Connect(ctx, cfg.Endpoints(), dbOpts...)
	if err != nil {
		return nil, err
	}
	db.Appended = cfg.EmittedEvent
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	replicas, err := db.OpenReplicas(ctx, cfg.ReplicaURLs, cfg.ReplicaMaxLag, log, dbOpts...)
	if err != nil {
		db.Close()
		return nil, err
	}
	a := &App{Config: cfg, DB: db, Log: log, closing: make(chan struct{}), draining: make(chan struct{}), Metrics: metrics.New(), Tracing: tracing, replicas: replicas}
	if err := a.wireWebhooks(); err != nil {
		db.Close()
		return nil, err
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", a.healthz)
	mux.Handle("GET "+board.Path, board.Handler())
	mux.Handle("GET "+board.Path+"/", board.Handler())
	limits := newRateLimits(cfg, db, log, a.Metrics)
	if err := a.wireAuth(ctx, mux, limits.TokenThrottle(tokenLimits(cfg))); err != nil {
		db.Close()
		return nil, err
	}
	if err := a.wireEvents(ctx); err != nil {
		db.Close()
		return nil, err
	}
	// REST, rate limits, logging/metrics/tracing; GraphQL and the document
	// uploads pass through the same authentication and rate limits.
	chain := &apiChain{authn: a.Auth.Middleware, limits: limits}
	if err := a.mountDocuments(ctx, mux); err != nil {
		db.Close()
		return nil, err
	}
	a.Cache = respcache.New(cfg.ResponseCacheBytes, &storage.ResponseVersions{DB: db})
	if a.Cache != nil {
		a.Metrics.Registry.MustRegister(a.Cache.Collector())
	}
	a.wireGraphQL(mux, chain.wrapRefusing(transport.WriteRateLimited), limits)
	readStore := &storage.Reads{DB: db}
	a.handler = mountREST(mux, chain, rest.Deps{Reads: &reads.Service{Store: readStore}, Documents: a.Documents,
		Exports: &reads.Exports{Store: readStore}, Events: a.Events.Log,
		Webhooks: a.Webhooks.Service, Destinations: a.Webhooks.Destinations, EmittedEvent: cfg.EmittedEvent}, connBounds{cfg.HTTP.withDefaults()}, log, a.Metrics, tracing, a.replicas != nil, a.Cache)
	a.handler = a.closeWhileDraining(a.handler)
	a.Metrics.WatchDatabase(db.Pool, db, a.GraphQL.Live.Members)
	a.admin = admin.Bounded(admin.Handler(a.Metrics.Handler(), a.ready), adminHost(cfg.AdminAddr))
	built = true
	return a, nil
}

// AdminHandler is the admin listener's face: /metrics, /debug/pprof/,
// /healthz and /readyz.
func (a *App) AdminHandler() http.Handler { return a.admin }

// ready is /readyz: the database answers, every migration is applied, and
// no stop has begun (a draining instance is taken out by its balancer).
func (a *App) ready(ctx context.Context) (string, bool) {
	if a.Draining() {
		return "stopping", false
	}
	pending, err := a.DB.PendingMigrations(ctx)
	switch {
	case err != nil:
		return "database unreachable", false
	case pending > 0:
		return "migrations pending", false
	}
	return "", true
}

// Handler is the HTTP face of the instance.
func (a *App) Handler() http.Handler { return a.handler }

// Run runs the background workers (the events relay, webhook dispatch and
// delivery) until ctx ends or one of them fails: a failure stops the others
// and Run returns it once all have returned, so the process does not go on
// serving without them.
func (a *App) Run(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer a.Events.Hub.Close() // nothing publishes once the relay returned
		if err := a.Events.Relay.Run(ctx); err != nil {
			return fmt.Errorf("events relay: %w", err)
		}
		return nil
	})
	a.runWebhooks(ctx, g)
	if a.replicas != nil {
		g.Go(func() error { return a.replicas.Run(ctx) })
	}
	return g.Wait()
}

// GoingAway ends every WebSocket connection with 1001 (http.Server does not
// track hijacked connections) and makes /readyz answer 503: Serve calls it
// when the drain is over and the server shuts down.
func (a *App) GoingAway() {
	a.drainingOnce.Do(func() { close(a.draining) })
	a.closingOnce.Do(func() { close(a.closing) })
}

// Close releases the database and exports the spans still buffered.
func (a *App) Close() {
	for _, c := range a.closers {
		c()
	}
	a.DB.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Tracing.Shutdown(ctx); err != nil {
		a.Log.Warn("tracing: spans lost at shutdown", "err", err)
	}
}

func (a *App) healthz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	w.Header().Set("Content-Type", "application/json")
	if err := a.DB.Ping(ctx); err != nil {
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(map[string]string{"status": "unavailable", "database": "unreachable"})
		return
	}
	_ = json.NewEncoder(w).Encode(map[string]string{"status": "ok"})
}
