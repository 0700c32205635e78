package app

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/ratelimit"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/storage"
)

// Default rate limits (DESIGN.md), requests per second.
const (
	DefaultClientRateLimit = 10
	DefaultTenantRateLimit = 50
)

// apiChain holds what every API request (REST and GraphQL) passes through
// after authentication: the per-client and per-tenant rate limits.
type apiChain struct {
	authn  func(http.Handler) http.Handler
	limits *rest.RateLimits
}

func newAPIChain(cfg Config, db *storage.DB, authn func(http.Handler) http.Handler, log *slog.Logger) *apiChain {
	client, tenant := cfg.ClientRateLimit, cfg.TenantRateLimit
	if client <= 0 {
		client = DefaultClientRateLimit
	}
	if tenant <= 0 {
		tenant = DefaultTenantRateLimit
	}
	return &apiChain{authn: authn, limits: &rest.RateLimits{
		Limiter: ratelimit.New(ratelimit.PGStore{Pool: db.Pool}, cfg.RateLimitClock),
		Client:  ratelimit.PerSecond(client),
		Tenant:  ratelimit.PerSecond(tenant),
		Log:     log,
	}}
}

// wrap puts an API handler (REST or GraphQL) behind authentication and the
// rate limits, which key on the Principal authentication puts in the context.
func (c *apiChain) wrap(h http.Handler) http.Handler { return c.authn(c.limits.Wrap(h)) }

// mountREST serves the REST routes, the OpenAPI document and /metrics on
// mux, and returns the outermost handler: request logging, metrics and
// trace context around everything.
func mountREST(mux *http.ServeMux, chain *apiChain, reads *domain.Reads, log *slog.Logger) http.Handler {
	reg := prometheus.NewRegistry()
	obs := rest.NewObserver(log, reg)
	mux.Handle(rest.Prefix, chain.wrap(rest.NewAPI(rest.Deps{Reads: reads})))
	mux.Handle("GET /metrics", rest.MetricsHandler(reg))
	return obs.Wrap(mux)
}
