package haulgraph

import (
	"context"
	"errors"
	"math/rand"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Version is this SDK's version, sent in the User-Agent.
const Version = "0.2.0"

// Defaults of a Client.
const (
	DefaultAudience   = "https://api.haulgraph.local"
	DefaultAPIVersion = "v1"
	DefaultTimeout    = 30 * time.Second
	DefaultMaxRetries = 2
	DefaultMaxWait    = 60 * time.Second
)

// Client calls one HaulGraph instance. It is safe for concurrent use. Its
// services group the API's resources, as in
// client.Loads.ChangeStatus(ctx, "LD-1", &LoadStatusParams{...}).
type Client struct {
	Statements *StatementService
	Loads      *LoadService
	Trips      *TripService
	Events     *EventService
	Webhooks   *WebhookService
	Documents  *DocumentService
	Invoices   *InvoiceService
	Trailers   *TrailerService
	Locations  *LocationService
	Users      *UserService

	cfg config

	mu  sync.Mutex
	tok *Token // the client-credentials token in use
}

type config struct {
	base         *url.URL
	http         *http.Client
	apiVersion   string
	userAgent    string
	timeout      time.Duration
	maxRetries   int
	maxWait      time.Duration
	onRetry      func(RetryInfo)
	sleep        func(ctx context.Context, d time.Duration) error
	jitter       func(n time.Duration) time.Duration
	now          func() time.Time
	clientID     string
	clientSecret string
	audience     string
	token        func(ctx context.Context) (string, error)
}

// Option configures a Client.
type Option func(*config)

// WithBaseURL is the instance's origin, e.g. "https://api.example.com".
func WithBaseURL(u string) Option {
	return func(c *config) {
		if p, err := url.Parse(strings.TrimRight(u, "/")); err == nil {
			c.base = p
		}
	}
}

// WithClientCredentials signs in with an OAuth client of the tenant: the
// token comes from /oauth/token and is renewed before it expires.
func WithClientCredentials(clientID, clientSecret string) Option {
	return func(c *config) { c.clientID, c.clientSecret = clientID, clientSecret }
}

// WithAudience is the audience a token is asked for (DefaultAudience).
func WithAudience(aud string) Option { return func(c *config) { c.audience = aud } }

// WithAccessToken supplies access tokens obtained elsewhere, instead of
// WithClientCredentials.
func WithAccessToken(fn func(ctx context.Context) (string, error)) Option {
	return func(c *config) { c.token = fn }
}

// WithHTTPClient sends every request (tokens included) through hc.
func WithHTTPClient(hc *http.Client) Option { return func(c *config) { c.http = hc } }

// WithAPIVersion chooses the REST path version (v1, v1.0, v2, v2.0).
func WithAPIVersion(v string) Option { return func(c *config) { c.apiVersion = v } }

// WithUserAgent prefixes the User-Agent with the integration's name.
func WithUserAgent(ua string) Option {
	return func(c *config) { c.userAgent = ua + " " + c.userAgent }
}

// WithTimeout bounds each attempt (DefaultTimeout; 0: no bound). The
// context passed to a call bounds the whole call, retries included. A
// stream (an export, a download) is bounded until its headers arrive.
func WithTimeout(d time.Duration) Option { return func(c *config) { c.timeout = d } }

// WithMaxRetries is how many times a failed request is sent again
// (DefaultMaxRetries; 0 disables retries).
func WithMaxRetries(n int) Option { return func(c *config) { c.maxRetries = max(n, 0) } }

// WithMaxWait is the longest Retry-After honoured (DefaultMaxWait): a
// longer one is not waited for, the call returns the *Error with its
// RetryAfter.
func WithMaxWait(d time.Duration) Option { return func(c *config) { c.maxWait = d } }

// RetryInfo tells WithOnRetry of a retry before its wait.
type RetryInfo struct {
	Attempt int           // the attempt that failed, from 1
	Wait    time.Duration // the wait before the next
	Err     error         // an *Error, or the connection error
}

// WithOnRetry is told of every retry (logging, metrics).
func WithOnRetry(fn func(RetryInfo)) Option { return func(c *config) { c.onRetry = fn } }

// WithSleeper replaces the real wait between retries and reconnects, and
// WithJitter the random part of the backoff (n: the bound, the result in
// [0, n]); tests use them so that nothing waits for real.
func WithSleeper(fn func(ctx context.Context, d time.Duration) error) Option {
	return func(c *config) { c.sleep = fn }
}

// WithJitter: see WithSleeper.
func WithJitter(fn func(n time.Duration) time.Duration) Option {
	return func(c *config) { c.jitter = fn }
}

// WithClock replaces time.Now (a Retry-After given as an HTTP date, token
// expiry).
func WithClock(fn func() time.Time) Option { return func(c *config) { c.now = fn } }

// New builds a client; WithBaseURL and WithClientCredentials (or
// WithAccessToken) are required.
func New(opts ...Option) (*Client, error) {
	cfg := config{
		http:       &http.Client{},
		apiVersion: DefaultAPIVersion,
		userAgent:  "haulgraph-go/" + Version,
		timeout:    DefaultTimeout,
		maxRetries: DefaultMaxRetries,
		maxWait:    DefaultMaxWait,
		sleep:      realSleep,
		jitter:     func(n time.Duration) time.Duration { return time.Duration(rand.Int63n(int64(n) + 1)) },
		now:        time.Now,
		audience:   DefaultAudience,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.base == nil || cfg.base.Scheme == "" || cfg.base.Host == "" {
		return nil, errors.New("haulgraph: WithBaseURL needs an absolute URL")
	}
	if cfg.token == nil && cfg.clientID == "" {
		return nil, errors.New("haulgraph: WithClientCredentials or WithAccessToken is required")
	}
	c := &Client{cfg: cfg}
	c.Statements = &StatementService{c}
	c.Loads = &LoadService{c}
	c.Trips = &TripService{c}
	c.Events = &EventService{c}
	c.Webhooks = &WebhookService{c}
	c.Documents = &DocumentService{c}
	c.Invoices = &InvoiceService{c}
	c.Trailers = &TrailerService{c}
	c.Locations = &LocationService{c}
	c.Users = &UserService{c}
	return c, nil
}

// BaseURL is the instance's origin.
func (c *Client) BaseURL() string { return c.cfg.base.String() }

func realSleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// restPath is a REST route under the client's version: restPath("invoices").
func (c *Client) restPath(route string) string {
	return "/api/p/" + c.cfg.apiVersion + "/" + route
}
