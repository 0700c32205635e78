// Package app is the composition root: it reads configuration, opens storage
// and wires auth, events, GraphQL and REST into one HTTP handler and the
// background workers. cmd/haulgraph and the end-to-end tests both use it.
package app

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/ratelimit"
	"github.com/haulgraph/haulgraph/respcache"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/telemetry"
)

// Config is everything the service reads from its environment.
type Config struct {
	// Tracing is OpenTelemetry's OTEL_* settings (telemetry.FromEnv); off
	// unless an OTLP endpoint is set (docs/tracing.md).
	Tracing     telemetry.Config
	DatabaseURL string // DATABASE_URL
	Addr        string // HAULGRAPH_ADDR
	Audience    string // HAULGRAPH_AUDIENCE
	// IssuerURL is the token issuer the API trusts (HAULGRAPH_ISSUER_URL);
	// empty means this server issues its own tokens at its public URL.
	IssuerURL string
	// PublicURL is this server's base URL, the issuer of its own tokens
	// (HAULGRAPH_PUBLIC_URL, default http://<addr>; required behind trusted
	// proxies, where that default names no address a client uses).
	PublicURL string
	BlobURL   string // HAULGRAPH_BLOB_URL
	// UploadMaxBytes overrides the 25 MB document limit per target
	// (HAULGRAPH_UPLOAD_MAX_BYTES_LOAD, _TRIP, _DRIVER, _CARRIER).
	UploadMaxBytes map[domain.DocumentParentType]int64
	// Now is the clock of document download links; nil is time.Now (tests
	// set it to reach expiry without sleeping).
	Now func() time.Time
	// DevAllowHTTPWebhooks lets webhooks target http://127.0.0.1 (tests only).
	DevAllowHTTPWebhooks bool
	// EncryptionKey is the master key (HAULGRAPH_ENCRYPTION_KEY, base64 of
	// 32 bytes): keys derived from it seal webhook secrets and signing keys
	// at rest and sign download links (secretbox.Derive). Required, except
	// in the demo, which keeps one at DemoDir/encryption.key.
	EncryptionKey string
	// DemoDir is the demo's home (HAULGRAPH_DEMO_DIR, an absolute path; make
	// run and scripts/with-pg.sh set it to the checkout's .data): its
	// generated encryption key and the demo client's credentials. Empty
	// outside the demo.
	DemoDir  string
	TokenTTL time.Duration
	// LegacyCutoff ends the legacy token transition (docs/api-contract.md §5.4).
	LegacyCutoff time.Time
	// RevocationPoll bounds how long a revocation made by another instance
	// or the CLI takes to reach this one (auth.DefaultRevocationPoll, 1 s).
	RevocationPoll time.Duration
	// SubscriberBuffer is how many events a live subscriber may have pending
	// before it is cut off as too slow (HAULGRAPH_SUBSCRIBER_BUFFER, default 64).
	SubscriberBuffer int
	// WebsocketInitTimeout is how long a WebSocket may wait before its
	// connection_init (HAULGRAPH_WS_INIT_TIMEOUT, default 10s; then close
	// 4408). Tests shorten it.
	WebsocketInitTimeout time.Duration
	// WebsocketKeepAlive is the interval of WebSocket pings (default 15s; a
	// peer that answers none for two intervals is cut off). Tests shorten it.
	WebsocketKeepAlive time.Duration
	// WebsocketMaxPerAddress bounds the WebSockets of one address that have
	// not yet sent connection_init (HAULGRAPH_WS_MAX_PER_ADDRESS, default
	// 32); WebsocketMaxPerClient those of one client past it
	// (HAULGRAPH_WS_MAX_PER_CLIENT, default 100). Both close with 4429.
	WebsocketMaxPerAddress int
	WebsocketMaxPerClient  int
	// StreamWriteTimeout bounds one write to a WebSocket or event stream
	// client (HAULGRAPH_STREAM_WRITE_TIMEOUT, default 10s): a client that
	// does not read is cut off after it.
	StreamWriteTimeout time.Duration
	// SSEMaxStreamsAddress bounds the event streams of one address
	// (HAULGRAPH_SSE_MAX_STREAMS_ADDRESS, default 100).
	SSEMaxStreamsAddress int
	// TokenExpiryTimer schedules the end of a live connection when its token
	// expires (transport.WebsocketOptions.AfterFunc); nil is time.AfterFunc.
	// Tests fire it instead of waiting for a token to expire.
	TokenExpiryTimer func(d time.Duration, f func()) (stop func() bool)
	// SSEMaxStreamsClient and SSEMaxStreamsTenant bound the GraphQL event
	// streams open on one instance per client and per tenant
	// (HAULGRAPH_SSE_MAX_STREAMS_CLIENT, _TENANT; default 100 and 1,000).
	SSEMaxStreamsClient int
	SSEMaxStreamsTenant int
	// SSEHeartbeat is the interval of an event stream's heartbeat comment
	// (default 15s; tests shorten it).
	SSEHeartbeat time.Duration
	// PersistedQueriesPerTenant and PersistedQueryBytesPerTenant bound each
	// tenant's automatic persisted queries, in entries and bytes
	// (HAULGRAPH_PERSISTED_QUERIES_PER_TENANT, default 1,000;
	// HAULGRAPH_PERSISTED_QUERY_BYTES_PER_TENANT, default 4 MiB).
	PersistedQueriesPerTenant    int
	PersistedQueryBytesPerTenant int
	// ResponseCacheBytes bounds the response cache of the instance
	// (HAULGRAPH_RESPONSE_CACHE_BYTES, default respcache.DefaultBytes,
	// 64 MiB; 0 turns it off, as does 0 here).
	ResponseCacheBytes int64
	// Rate limits in requests per second (docs/architecture.md), per client
	// (HAULGRAPH_RATE_LIMIT_CLIENT, default 10) and per tenant
	// (HAULGRAPH_RATE_LIMIT_TENANT, default 50); zero means the default.
	ClientRateLimit float64
	TenantRateLimit float64
	// TokenRateLimit and TokenRateBurst limit POST /oauth/token per
	// client_id presented, or per remote address when none is
	// (HAULGRAPH_RATE_LIMIT_TOKEN, default 5/s; HAULGRAPH_RATE_LIMIT_TOKEN_BURST,
	// default 20); zero means the default.
	TokenRateLimit float64
	TokenRateBurst int
	// TokenAddressRateLimit and TokenAddressRateBurst limit POST /oauth/token
	// per remote address, on each instance (HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESS,
	// default 5/s; HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESS_BURST, default 30);
	// TokenAddressMax bounds the addresses an instance keeps a bucket for
	// (HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESSES, default 100,000). Zero means the default.
	TokenAddressRateLimit float64
	TokenAddressRateBurst int
	TokenAddressMax       int
	// TokenGlobalRateLimit and TokenGlobalRateBurst limit POST /oauth/token
	// as a whole, one bucket shared by every instance
	// (HAULGRAPH_RATE_LIMIT_TOKEN_GLOBAL, default 100/s;
	// HAULGRAPH_RATE_LIMIT_TOKEN_GLOBAL_BURST, default 500); zero means the default.
	TokenGlobalRateLimit float64
	TokenGlobalRateBurst int
	// RateLimitClock replaces time.Now in the rate limiter (tests move it
	// instead of sleeping).
	RateLimitClock func() time.Time
	// RateLimitStore, when set, wraps the PostgreSQL bucket store (tests
	// make it fail; never from the environment).
	RateLimitStore func(ratelimit.Store) ratelimit.Store
	// DBRoundTrips, when set, counts the database round trips of the
	// instance's pool (tests and benchmarks; never from the environment).
	DBRoundTrips *storage.RoundTrips
	// WebhookResolver, when set, answers webhook host names instead of the
	// system's resolver, when a URL is saved and when it is dialled (tests
	// point a name at an internal address without DNS).
	WebhookResolver webhooks.HostResolver
	// EmittedEvent, when set, is told every event payload as it is written:
	// envelopes appended to the outbox (eventlog.ChannelOutbox), webhook
	// bodies, events API items, subscription results (tests check them
	// against the published schemas; never from the environment).
	EmittedEvent eventschema.EmitFunc
	// GraphQL query cost (operation.DefaultCost*): the most one query may cost
	// (HAULGRAPH_GRAPHQL_COST_LIMIT), and per client a budget of points
	// (HAULGRAPH_GRAPHQL_COST_BUDGET) refilled per second
	// (HAULGRAPH_GRAPHQL_COST_REFILL), shared by every instance; zero means
	// the default.
	GraphQLCostLimit  int
	GraphQLCostBudget int
	GraphQLCostRefill float64
	// GraphQL document bounds (operation.DefaultMaxNodes, DefaultMaxNesting,
	// DefaultMaxErrors, DefaultRefusalCost*): the selections, directives and
	// values of one document, fragments counted each time they are spread
	// (HAULGRAPH_GRAPHQL_MAX_NODES); how deep they nest
	// (HAULGRAPH_GRAPHQL_MAX_NESTING); the errors of one answer (HAULGRAPH_GRAPHQL_MAX_ERRORS); the points a
	// document refused before it runs costs, plus per KiB of it
	// (HAULGRAPH_GRAPHQL_REFUSAL_COST, HAULGRAPH_GRAPHQL_REFUSAL_COST_PER_KIB).
	// Zero means the default.
	GraphQLMaxNodes          int
	GraphQLMaxNesting        int
	GraphQLMaxErrors         int
	GraphQLRefusalCost       int
	GraphQLRefusalCostPerKiB int
	// DisableIntrospection turns GraphQL introspection off
	// (HAULGRAPH_GRAPHQL_INTROSPECTION=false; on by default).
	DisableIntrospection bool
	// ShutdownTimeout bounds a graceful stop (HAULGRAPH_SHUTDOWN_TIMEOUT,
	// default 10s): in-flight requests and webhook attempts may finish
	// within it; zero (tests) cancels webhook attempts at once.
	ShutdownTimeout time.Duration
	// ShutdownDrain is how long a stop goes on serving, /readyz at 503 and
	// every answer with Connection: close, before the listener closes
	// (HAULGRAPH_SHUTDOWN_DRAIN, default DefaultShutdownDrain; zero: none):
	// the load balancer's health check takes the instance out meanwhile.
	ShutdownDrain time.Duration
	// DrainTimer ends the drain (nil: a timer of ShutdownDrain). Tests end
	// it when their balancer has taken the instance out, never by waiting.
	DrainTimer func(d time.Duration) <-chan time.Time
	// AdminAddr is the admin listener's address: metrics, pprof, /healthz
	// and /readyz (HAULGRAPH_ADMIN_ADDR, default 127.0.0.1:9090; set empty
	// to disable it).
	AdminAddr string
	// DBConnectTimeout bounds one connection attempt to PostgreSQL
	// (HAULGRAPH_DB_CONNECT_TIMEOUT, default 5s); zero is the default.
	DBConnectTimeout time.Duration
	// Pooler names what DATABASE_URL leads to (HAULGRAPH_POOLER): empty is
	// the server itself, "pgbouncer" a transaction-mode pooler, which then
	// needs DirectDatabaseURL (HAULGRAPH_DIRECT_DATABASE_URL), the server
	// itself, for the work that needs a session: the relay's LISTEN and the
	// migrations (docs/pooler.md). DirectDatabaseURL may be set without a
	// pooler too.
	Pooler            string
	DirectDatabaseURL string
	// DBHealthCheckPeriod is how often the pool drops idle connections that
	// no longer answer (storage.HealthCheckPeriod; zero is pgxpool's
	// minute). EventRelayRetry is the relay's pause before it listens again
	// after losing the database (zero: 1s). Tests of a failover shorten both.
	DBHealthCheckPeriod time.Duration
	EventRelayRetry     time.Duration
	// HTTP holds the public server's connection bounds (app/server.go).
	HTTP HTTPLimits
	// ReplicaURLs are read replicas (HAULGRAPH_REPLICA_URLS, comma-separated;
	// none by default): read-only work goes to a healthy one (docs/replicas.md).
	ReplicaURLs []string
	// ReplicaMaxLag is how far behind the primary a replica may be and still
	// serve reads (HAULGRAPH_REPLICA_MAX_LAG, default 5s).
	ReplicaMaxLag time.Duration
}

// DefaultAdminAddr is the admin listener's address when
// HAULGRAPH_ADMIN_ADDR is unset: loopback only.
const DefaultAdminAddr = "127.0.0.1:9090"

// DefaultAudience is the API audience when HAULGRAPH_AUDIENCE is unset.
const DefaultAudience = "https://api.haulgraph.local"

// FromEnv reads the configuration, with the defaults of docs/operating.md's
// Environment table.
func FromEnv() (Config, error) {
	c := Config{
		DatabaseURL:     os.Getenv("DATABASE_URL"),
		Addr:            envOr("HAULGRAPH_ADDR", "127.0.0.1:8080"),
		Audience:        envOr("HAULGRAPH_AUDIENCE", DefaultAudience),
		IssuerURL:       os.Getenv("HAULGRAPH_ISSUER_URL"),
		PublicURL:       os.Getenv("HAULGRAPH_PUBLIC_URL"),
		BlobURL:         envOr("HAULGRAPH_BLOB_URL", "file://.data/blobs"),
		TokenTTL:        time.Hour,
		LegacyCutoff:    time.Date(2025, 7, 31, 0, 0, 0, 0, time.UTC).Add(24 * time.Hour),
		EncryptionKey:   os.Getenv("HAULGRAPH_ENCRYPTION_KEY"),
		DemoDir:         os.Getenv("HAULGRAPH_DEMO_DIR"),
		ShutdownTimeout: 10 * time.Second,
		ShutdownDrain:   DefaultShutdownDrain,
	}
	tracing, err := telemetry.FromEnv(os.Getenv)
	if err != nil {
		return c, err
	}
	c.Tracing = tracing
	if v := os.Getenv("HAULGRAPH_SHUTDOWN_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("HAULGRAPH_SHUTDOWN_TIMEOUT: a positive duration, got %q", v)
		}
		c.ShutdownTimeout = d
	}
	if v := os.Getenv("HAULGRAPH_SHUTDOWN_DRAIN"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return c, fmt.Errorf("HAULGRAPH_SHUTDOWN_DRAIN: a duration, 0 for none, got %q", v)
		}
		c.ShutdownDrain = d
	}
	c.AdminAddr = DefaultAdminAddr
	if v, set := os.LookupEnv("HAULGRAPH_ADMIN_ADDR"); set {
		c.AdminAddr = v // empty: no admin listener
	}
	if v := os.Getenv("HAULGRAPH_DB_CONNECT_TIMEOUT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("HAULGRAPH_DB_CONNECT_TIMEOUT: a positive duration, got %q", v)
		}
		c.DBConnectTimeout = d
	}
	for _, u := range strings.Split(os.Getenv("HAULGRAPH_REPLICA_URLS"), ",") {
		if u = strings.TrimSpace(u); u != "" {
			c.ReplicaURLs = append(c.ReplicaURLs, u)
		}
	}
	if v := os.Getenv("HAULGRAPH_REPLICA_MAX_LAG"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return c, fmt.Errorf("HAULGRAPH_REPLICA_MAX_LAG: a positive duration, got %q", v)
		}
		c.ReplicaMaxLag = d
	}
	if c.DatabaseURL == "" {
		return c, fmt.Errorf("DATABASE_URL is not set (make run starts a private PostgreSQL and sets it)")
	}
	c.Pooler, c.DirectDatabaseURL = os.Getenv("HAULGRAPH_POOLER"), os.Getenv("HAULGRAPH_DIRECT_DATABASE_URL")
	if err := c.Endpoints().Check(); err != nil {
		return c, fmt.Errorf("HAULGRAPH_POOLER, HAULGRAPH_DIRECT_DATABASE_URL: %w", err)
	}
	if c.DemoDir != "" && !filepath.IsAbs(c.DemoDir) {
		return c, fmt.Errorf("HAULGRAPH_DEMO_DIR: an absolute path, got %q", c.DemoDir)
	}
	if c.DemoDir != "" && os.Getenv("HAULGRAPH_BLOB_URL") == "" {
		c.BlobURL = "file://" + filepath.Join(c.DemoDir, "blobs") // the demo's files stay with the demo, whatever the working directory
	}
	if v := os.Getenv("HAULGRAPH_DEV_ALLOW_HTTP_WEBHOOKS"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("HAULGRAPH_DEV_ALLOW_HTTP_WEBHOOKS: %w", err)
		}
		c.DevAllowHTTPWebhooks = b
	}
	if v := os.Getenv("HAULGRAPH_SUBSCRIBER_BUFFER"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return c, fmt.Errorf("HAULGRAPH_SUBSCRIBER_BUFFER: a positive integer, got %q", v)
		}
		c.SubscriberBuffer = n
	}
	for env, dst := range map[string]*int{"HAULGRAPH_SSE_MAX_STREAMS_CLIENT": &c.SSEMaxStreamsClient, "HAULGRAPH_SSE_MAX_STREAMS_TENANT": &c.SSEMaxStreamsTenant,
		"HAULGRAPH_PERSISTED_QUERIES_PER_TENANT": &c.PersistedQueriesPerTenant, "HAULGRAPH_PERSISTED_QUERY_BYTES_PER_TENANT": &c.PersistedQueryBytesPerTenant} {
		if v := os.Getenv(env); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return c, fmt.Errorf("%s: a positive integer, got %q", env, v)
			}
			*dst = n
		}
	}
	c.ResponseCacheBytes = respcache.DefaultBytes
	if v := os.Getenv("HAULGRAPH_RESPONSE_CACHE_BYTES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return c, fmt.Errorf("HAULGRAPH_RESPONSE_CACHE_BYTES: a number of bytes (0: no cache), got %q", v)
		}
		c.ResponseCacheBytes = n
	}
	if err := streamBoundsFromEnv(&c); err != nil {
		return c, err
	}
	limits, err := uploadLimitsFromEnv()
	if err != nil {
		return c, err
	}
	c.UploadMaxBytes = limits
	for env, dst := range map[string]*float64{"HAULGRAPH_RATE_LIMIT_CLIENT": &c.ClientRateLimit, "HAULGRAPH_RATE_LIMIT_TENANT": &c.TenantRateLimit, "HAULGRAPH_RATE_LIMIT_TOKEN": &c.TokenRateLimit,
		"HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESS": &c.TokenAddressRateLimit, "HAULGRAPH_RATE_LIMIT_TOKEN_GLOBAL": &c.TokenGlobalRateLimit} {
		if v := os.Getenv(env); v != "" {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 {
				return c, fmt.Errorf("%s: want a positive number of requests per second, got %q", env, v)
			}
			*dst = f
		}
	}
	for env, dst := range map[string]*int{"HAULGRAPH_RATE_LIMIT_TOKEN_BURST": &c.TokenRateBurst,
		"HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESS_BURST": &c.TokenAddressRateBurst, "HAULGRAPH_RATE_LIMIT_TOKEN_GLOBAL_BURST": &c.TokenGlobalRateBurst,
		"HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESSES": &c.TokenAddressMax} {
		if v := os.Getenv(env); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return c, fmt.Errorf("%s: a positive integer, got %q", env, v)
			}
			*dst = n
		}
	}
	if err := httpLimitsFromEnv(&c.HTTP); err != nil {
		return c, err
	}
	if c.PublicURL == "" && len(c.HTTP.TrustedProxies) > 0 {
		// Behind a balancer http://<addr> names no address a client uses, and
		// each instance would issue tokens under an issuer of its own.
		return c, errors.New("HAULGRAPH_TRUSTED_PROXIES is set but HAULGRAPH_PUBLIC_URL is not: behind a load balancer every instance must name the one URL clients use, or each refuses the tokens the others issue (docs/deploy.md)")
	}
	if c.PublicURL == "" {
		c.PublicURL = "http://" + c.Addr
	}
	if err := graphQLCostFromEnv(&c); err != nil {
		return c, err
	}
	if v := os.Getenv("HAULGRAPH_GRAPHQL_INTROSPECTION"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("HAULGRAPH_GRAPHQL_INTROSPECTION: %w", err)
		}
		c.DisableIntrospection = !b
	}
	if v := os.Getenv("HAULGRAPH_TOKEN_TTL"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			return c, fmt.Errorf("HAULGRAPH_TOKEN_TTL: %w", err)
		}
		c.TokenTTL = d
	}
	return c, nil
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// graphQLCostFromEnv reads the GraphQL cost limit, budget and document
// bounds; a limit above the budget could never be paid and is refused.
func graphQLCostFromEnv(c *Config) error {
	for env, dst := range map[string]*int{"HAULGRAPH_GRAPHQL_COST_LIMIT": &c.GraphQLCostLimit, "HAULGRAPH_GRAPHQL_COST_BUDGET": &c.GraphQLCostBudget,
		"HAULGRAPH_GRAPHQL_MAX_NODES": &c.GraphQLMaxNodes, "HAULGRAPH_GRAPHQL_MAX_NESTING": &c.GraphQLMaxNesting, "HAULGRAPH_GRAPHQL_MAX_ERRORS": &c.GraphQLMaxErrors,
		"HAULGRAPH_GRAPHQL_REFUSAL_COST": &c.GraphQLRefusalCost, "HAULGRAPH_GRAPHQL_REFUSAL_COST_PER_KIB": &c.GraphQLRefusalCostPerKiB} {
		if v := os.Getenv(env); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return fmt.Errorf("%s: want a positive number, got %q", env, v)
			}
			*dst = n
		}
	}
	if v := os.Getenv("HAULGRAPH_GRAPHQL_COST_REFILL"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f <= 0 || math.IsInf(f, 0) {
			return fmt.Errorf("HAULGRAPH_GRAPHQL_COST_REFILL: want a positive number of points per second, got %q", v)
		}
		c.GraphQLCostRefill = f
	}
	if c.GraphQLCostLimit > 0 && c.GraphQLCostBudget > 0 && c.GraphQLCostLimit > c.GraphQLCostBudget {
		return fmt.Errorf("HAULGRAPH_GRAPHQL_COST_LIMIT (%d) exceeds HAULGRAPH_GRAPHQL_COST_BUDGET (%d): no query that large could ever run", c.GraphQLCostLimit, c.GraphQLCostBudget)
	}
	return nil
}

// Endpoints is how storage reaches the database.
func (c Config) Endpoints() storage.Endpoints {
	return storage.Endpoints{URL: c.DatabaseURL, DirectURL: c.DirectDatabaseURL, Pooler: c.Pooler}
}
