package app

import (
	"log/slog"
	"net/http"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/httpedge"
	"github.com/haulgraph/haulgraph/metrics"
	"github.com/haulgraph/haulgraph/ratelimit"
	"github.com/haulgraph/haulgraph/refdocs"
	"github.com/haulgraph/haulgraph/respcache"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/telemetry"
)

// Default rate limits (docs/architecture.md), requests per second; the token endpoint
// allows a burst of DefaultTokenRateBurst per client, of
// DefaultTokenAddressRateBurst per remote address (on each instance, for at
// most DefaultTokenAddressMax addresses) and of DefaultTokenGlobalRateBurst
// to all callers together.
const (
	DefaultClientRateLimit       = 10
	DefaultTenantRateLimit       = 50
	DefaultTokenRateLimit        = 5
	DefaultTokenRateBurst        = 20
	DefaultTokenAddressRateLimit = 5
	DefaultTokenAddressRateBurst = 30
	DefaultTokenAddressMax       = 100_000
	DefaultTokenGlobalRateLimit  = 100
	DefaultTokenGlobalRateBurst  = 500
)

// apiChain holds what every API request (REST and GraphQL) passes through
// after authentication: the per-client and per-tenant rate limits.
type apiChain struct {
	authn  func(http.Handler) http.Handler
	limits *httpedge.RateLimits
}

// newRateLimits is the one limiter of the instance (buckets shared with the
// other instances through PostgreSQL): API, GraphQL and token endpoint.
func newRateLimits(cfg Config, db *storage.DB, log *slog.Logger, m *metrics.Metrics) *httpedge.RateLimits {
	client, tenant := cfg.ClientRateLimit, cfg.TenantRateLimit
	if client <= 0 {
		client = DefaultClientRateLimit
	}
	if tenant <= 0 {
		tenant = DefaultTenantRateLimit
	}
	var store ratelimit.Store = ratelimit.PGStore{Buckets: &storage.RateLimits{DB: db}}
	if cfg.RateLimitStore != nil {
		store = cfg.RateLimitStore(store)
	}
	return &httpedge.RateLimits{
		Limiter: ratelimit.New(store, cfg.RateLimitClock),
		Client:  ratelimit.PerSecond(client),
		Tenant:  ratelimit.PerSecond(tenant),
		Log:     log,
		Refused: m.RateLimited,
		Refuse: func(w http.ResponseWriter, r *http.Request, err *domain.Error) {
			rest.WriteError(w, r, err) // REST's format; /graphql's is set by wrapRefusing
		},
	}
}

// tokenLimits are the token endpoint's buckets. The per-address buckets
// live in this instance's memory: a made-up client_id or a new address
// costs no database write, and N instances allow N times an address's
// rate at most; the global and per-client buckets are shared.
func tokenLimits(cfg Config) httpedge.TokenLimits {
	limit := func(rate float64, burst int, defRate float64, defBurst int) ratelimit.Limit {
		if rate <= 0 {
			rate = defRate
		}
		if burst <= 0 {
			burst = defBurst
		}
		return ratelimit.Limit{Rate: rate, Burst: burst}
	}
	addresses := cfg.TokenAddressMax
	if addresses <= 0 {
		addresses = DefaultTokenAddressMax
	}
	return httpedge.TokenLimits{
		Client:    limit(cfg.TokenRateLimit, cfg.TokenRateBurst, DefaultTokenRateLimit, DefaultTokenRateBurst),
		Address:   limit(cfg.TokenAddressRateLimit, cfg.TokenAddressRateBurst, DefaultTokenAddressRateLimit, DefaultTokenAddressRateBurst),
		Addresses: ratelimit.New(ratelimit.NewMemStore(addresses), cfg.RateLimitClock),
		Global:    limit(cfg.TokenGlobalRateLimit, cfg.TokenGlobalRateBurst, DefaultTokenGlobalRateLimit, DefaultTokenGlobalRateBurst),
	}
}

// wrapRefusing puts an API handler behind authentication and the rate
// limits (which key on the Principal authentication puts in the context),
// refusing in another transport's error format (GraphQL errors on
// /graphql); the buckets are the same.
func (c *apiChain) wrapRefusing(refuse httpedge.Refusal) func(http.Handler) http.Handler {
	limits := c.limits.Refusing(refuse)
	return func(h http.Handler) http.Handler { return c.authn(limits.Wrap(h)) }
}

// mountREST serves the REST routes, the OpenAPI document and its reference
// site (refdocs) on mux, and returns the outermost handler: request
// logging, metrics and trace context around everything, and outside them
// the client's address (from the trusted proxies only). /metrics is on the admin listener only.
// The body and write bounds sit inside the observer, so that a 408 they
// answer is logged and counted like any other answer.
func mountREST(mux *http.ServeMux, chain *apiChain, deps rest.Deps, bounds connBounds, log *slog.Logger, m *metrics.Metrics, t *telemetry.Tracing, replicas bool, cache *respcache.Cache) http.Handler {
	obs := httpedge.NewObserver(log, m)
	if t.On() {
		obs.Trace(t.Tracer, t.Propagator)
	}
	api := rest.NewAPI(deps)
	// The cache answers a conditional GET before the limits (304 spends the
	// tenant's bucket alone), so it wraps them itself.
	var h http.Handler = cache.HTTP(api.Cacheable, chain.limits)(api)
	if replicas {
		h = readOnlyREST(h) // reads (and the versions the cache checks) may go to a replica
	}
	mux.Handle(rest.Prefix, api.Labelled(chain.authn(h)))
	docs := refdocs.Handler()
	mux.Handle("GET "+refdocs.Path, docs)
	mux.Handle("GET "+refdocs.Path+"/", docs)
	clients := httpedge.Clients{Proxies: bounds.TrustedProxies}
	return clients.Wrap(obs.Wrap(bounds.Wrap(boundHead(mux))))
}
