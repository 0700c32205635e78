package app

import (
	"log/slog"
	"net/http"

	"github.com/haulgraph/haulgraph/metrics"
	"github.com/haulgraph/haulgraph/ratelimit"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/storage"
)

// Default rate limits (DESIGN.md), requests per second; the token endpoint
// allows a burst of DefaultTokenRateBurst per client_id.
const (
	DefaultClientRateLimit = 10
	DefaultTenantRateLimit = 50
	DefaultTokenRateLimit  = 5
	DefaultTokenRateBurst  = 20
)

// apiChain holds what every API request (REST and GraphQL) passes through
// after authentication: the per-client and per-tenant rate limits.
type apiChain struct {
	authn  func(http.Handler) http.Handler
	limits *rest.RateLimits
}

// newRateLimits is the one limiter of the instance (buckets shared with the
// other instances through PostgreSQL): API, GraphQL and token endpoint.
func newRateLimits(cfg Config, db *storage.DB, log *slog.Logger, m *metrics.Metrics) *rest.RateLimits {
	client, tenant := cfg.ClientRateLimit, cfg.TenantRateLimit
	if client <= 0 {
		client = DefaultClientRateLimit
	}
	if tenant <= 0 {
		tenant = DefaultTenantRateLimit
	}
	return &rest.RateLimits{
		Limiter: ratelimit.New(ratelimit.PGStore{Pool: db.Pool}, cfg.RateLimitClock),
		Client:  ratelimit.PerSecond(client),
		Tenant:  ratelimit.PerSecond(tenant),
		Log:     log,
		Refused: m.RateLimited,
	}
}

// tokenLimit is the token endpoint's bucket per client_id.
func tokenLimit(cfg Config) ratelimit.Limit {
	l := ratelimit.Limit{Rate: cfg.TokenRateLimit, Burst: cfg.TokenRateBurst}
	if l.Rate <= 0 {
		l.Rate = DefaultTokenRateLimit
	}
	if l.Burst <= 0 {
		l.Burst = DefaultTokenRateBurst
	}
	return l
}

// wrap puts an API handler (REST or GraphQL) behind authentication and the
// rate limits, which key on the Principal authentication puts in the context.
func (c *apiChain) wrap(h http.Handler) http.Handler { return c.authn(c.limits.Wrap(h)) }

// wrapRefusing is wrap with refusals in another transport's error format
// (GraphQL errors on /graphql); the buckets are the same.
func (c *apiChain) wrapRefusing(refuse rest.Refusal) func(http.Handler) http.Handler {
	limits := c.limits.Refusing(refuse)
	return func(h http.Handler) http.Handler { return c.authn(limits.Wrap(h)) }
}

// mountREST serves the REST routes and the OpenAPI document on mux, and
// returns the outermost handler: request logging, metrics and trace
// context around everything. /metrics is on the admin listener only.
// The body and write bounds sit inside the observer, so that a 408 they
// answer is logged and counted like any other answer.
func mountREST(mux *http.ServeMux, chain *apiChain, deps rest.Deps, bounds connBounds, log *slog.Logger, m *metrics.Metrics) http.Handler {
	obs := rest.NewObserver(log, m)
	api := rest.NewAPI(deps)
	mux.Handle(rest.Prefix, api.Labelled(chain.wrap(api)))
	return obs.Wrap(bounds.Wrap(boundHead(mux)))
}
