package haulgraph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// DefaultAudience is the audience a token is asked for unless WithAudience
// names another.
const DefaultAudience = "https://api.haulgraph.local"

// DefaultAPIVersion is the path version of the REST routes.
const DefaultAPIVersion = "v1"

// Version is this SDK's version, sent in the User-Agent.
const Version = "0.1.0"

// Client calls one HaulGraph instance. It is safe for concurrent use.
type Client struct {
	base       *url.URL
	http       *http.Client
	apiVersion string
	userAgent  string
	retry      RetryPolicy
	sleep      Sleeper
	timeout    time.Duration

	clientID, clientSecret string
	audience               string
	tokens                 oauth2.TokenSource // WithTokenSource
	cc                     *clientcredentials.Config

	mu  sync.Mutex
	tok *oauth2.Token // the client-credentials token in use
}

// Option configures a Client.
type Option func(*Client)

// Sleeper waits d or until ctx ends. Tests replace it so that no test
// waits for real.
type Sleeper func(ctx context.Context, d time.Duration) error

// RetryPolicy bounds the retries of a refused request.
type RetryPolicy struct {
	// MaxAttempts counts the first try; 1 never retries.
	MaxAttempts int
	// MaxWait is the longest Retry-After honoured; a longer one is
	// returned as the error instead.
	MaxWait time.Duration
	// DefaultWait is the wait when a refusal has no Retry-After.
	DefaultWait time.Duration
	// OnRetry, when set, is told of every retry before its wait.
	OnRetry func(attempt int, err *Error, wait time.Duration)
}

// DefaultRetryPolicy: three attempts, waits of at most a minute.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 3, MaxWait: time.Minute, DefaultWait: time.Second}

// WithBaseURL is the instance's origin, e.g. "https://api.example.com".
func WithBaseURL(u string) Option {
	return func(c *Client) {
		if p, err := url.Parse(strings.TrimRight(u, "/")); err == nil {
			c.base = p
		}
	}
}

// WithHTTPClient sends every request (tokens included) through hc.
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.http = hc } }

// WithAPIVersion chooses the REST path version (v1, v1.0, v2, v2.0).
func WithAPIVersion(v string) Option { return func(c *Client) { c.apiVersion = v } }

// WithUserAgent prefixes the User-Agent with the integration's name.
func WithUserAgent(ua string) Option {
	return func(c *Client) { c.userAgent = ua + " " + c.userAgent }
}

// WithRetryPolicy replaces DefaultRetryPolicy.
func WithRetryPolicy(p RetryPolicy) Option { return func(c *Client) { c.retry = p } }

// WithSleeper replaces the real wait between retries and reconnects.
func WithSleeper(s Sleeper) Option { return func(c *Client) { c.sleep = s } }

// WithTimeout bounds each request that is not a stream (exports and
// subscriptions are bounded by their context only). Zero: no bound.
func WithTimeout(d time.Duration) Option { return func(c *Client) { c.timeout = d } }

// WithClientCredentials signs in with an OAuth2 client of the tenant; the
// token is fetched from /oauth/token and renewed before it expires.
func WithClientCredentials(clientID, clientSecret string) Option {
	return func(c *Client) { c.clientID, c.clientSecret = clientID, clientSecret }
}

// WithAudience is the audience asked for in the token request.
func WithAudience(aud string) Option { return func(c *Client) { c.audience = aud } }

// WithTokenSource supplies tokens from elsewhere (a token obtained by other
// means: oauth2.StaticTokenSource).
func WithTokenSource(ts oauth2.TokenSource) Option { return func(c *Client) { c.tokens = ts } }

// New builds a client; WithBaseURL and a way to get tokens are required.
func New(opts ...Option) (*Client, error) {
	c := &Client{
		http:       &http.Client{},
		apiVersion: DefaultAPIVersion,
		userAgent:  "haulgraph-go/" + Version,
		retry:      DefaultRetryPolicy,
		sleep:      realSleep,
		audience:   DefaultAudience,
	}
	for _, o := range opts {
		o(c)
	}
	if c.base == nil || c.base.Scheme == "" || c.base.Host == "" {
		return nil, errors.New("haulgraph: WithBaseURL needs an absolute URL")
	}
	if c.retry.MaxAttempts < 1 {
		c.retry.MaxAttempts = 1
	}
	if c.tokens == nil {
		if c.clientID == "" {
			return nil, errors.New("haulgraph: WithClientCredentials or WithTokenSource is required")
		}
		c.cc = &clientcredentials.Config{
			ClientID: c.clientID, ClientSecret: c.clientSecret,
			TokenURL:       c.base.String() + "/oauth/token",
			EndpointParams: url.Values{"audience": {c.audience}},
			AuthStyle:      oauth2.AuthStyleInParams,
		}
	}
	return c, nil
}

// Token returns the access token in use, fetching a new one from
// /oauth/token when there is none or it expires within 10 seconds.
func (c *Client) Token(ctx context.Context) (*oauth2.Token, error) {
	var (
		t   *oauth2.Token
		err error
	)
	if c.tokens != nil {
		t, err = c.tokens.Token()
	} else {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.tok.Valid() {
			return c.tok, nil
		}
		// The token request goes through the client's HTTP client.
		t, err = c.cc.Token(context.WithValue(ctx, oauth2.HTTPClient, c.http))
		if err == nil {
			c.tok = t
		}
	}
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) {
			return nil, tokenError(re)
		}
		return nil, fmt.Errorf("haulgraph: token: %w", err)
	}
	return t, nil
}

// dropToken forgets t when it is the token in use (refused: revoked, its
// signing key removed), so that the next call fetches another. Reports
// whether a new token can be had.
func (c *Client) dropToken(t *oauth2.Token) bool {
	if c.cc == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && t != nil && c.tok.AccessToken == t.AccessToken {
		c.tok = nil
	}
	return true
}

// BaseURL is the instance's origin.
func (c *Client) BaseURL() string { return c.base.String() }

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
	return "/api/p/" + c.apiVersion + "/" + route
}

// request is one call: what to send and whether it may be sent again.
type request struct {
	method string
	path   string // absolute path, or a full URL of the same origin (Link)
	query  url.Values
	body   []byte
	ctype  string
	accept string
	// idempotent requests are retried on 503 too; every request is
	// retried on 429, which the server answers before acting.
	idempotent bool
	// stream: the response body is handed over unread and no timeout
	// bounds it.
	stream bool
	noAuth bool
}

func jsonBody(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// send runs r with the retry policy; the caller closes the response body.
func (c *Client) send(ctx context.Context, r request) (*http.Response, context.CancelFunc, error) {
	u, err := c.resolve(r.path)
	if err != nil {
		return nil, nil, err
	}
	if r.query != nil {
		u.RawQuery = r.query.Encode()
	}
	refreshed := false
	for attempt := 1; ; attempt++ {
		rctx, cancel := ctx, context.CancelFunc(func() {})
		if c.timeout > 0 && !r.stream {
			rctx, cancel = context.WithTimeout(ctx, c.timeout)
		}
		res, used, err := c.once(rctx, u, r)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		if res.StatusCode < 400 {
			return res, cancel, nil
		}
		apiErr := readError(res)
		cancel()
		// A refused token (revoked, or its key rotated out) is replaced
		// once; the request was not acted on.
		if res.StatusCode == http.StatusUnauthorized && used != nil && !refreshed && c.dropToken(used) {
			refreshed = true
			attempt--
			continue
		}
		retryable := res.StatusCode == http.StatusTooManyRequests ||
			(res.StatusCode == http.StatusServiceUnavailable && r.idempotent)
		if !retryable || attempt >= c.retry.MaxAttempts {
			return nil, nil, apiErr
		}
		wait := apiErr.RetryAfter
		if wait <= 0 {
			wait = c.retry.DefaultWait
		}
		if c.retry.MaxWait > 0 && wait > c.retry.MaxWait {
			return nil, nil, apiErr
		}
		if c.retry.OnRetry != nil {
			c.retry.OnRetry(attempt, apiErr, wait)
		}
		if err := c.sleep(ctx, wait); err != nil {
			return nil, nil, err
		}
	}
}

func (c *Client) resolve(path string) (*url.URL, error) {
	ref, err := url.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("haulgraph: %w", err)
	}
	u := c.base.ResolveReference(ref)
	// A Link must stay on the instance the token is for.
	if u.Host != c.base.Host || u.Scheme != c.base.Scheme {
		return nil, fmt.Errorf("haulgraph: refusing to follow %s off %s", u.Redacted(), c.base.Host)
	}
	return u, nil
}

// once sends r one time and returns the answer with the token it carried.
func (c *Client) once(ctx context.Context, u *url.URL, r request) (*http.Response, *oauth2.Token, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, nil, fmt.Errorf("haulgraph: %w", err)
	}
	req.Header.Set("User-Agent", c.userAgent)
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	} else {
		req.Header.Set("Accept", "application/json")
	}
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	var tok *oauth2.Token
	if !r.noAuth {
		if tok, err = c.Token(ctx); err != nil {
			return nil, nil, err
		}
		tok.SetAuthHeader(req)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("haulgraph: %s %s: %w", r.method, u.Path, err)
	}
	return res, tok, nil
}

// call sends r and decodes a JSON answer into out (nil: discard it).
func (c *Client) call(ctx context.Context, r request, out any) (http.Header, error) {
	res, cancel, err := c.send(ctx, r)
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer res.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		return res.Header, nil
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return nil, fmt.Errorf("haulgraph: %s %s: decoding the answer: %w", r.method, res.Request.URL.Path, err)
	}
	return res.Header, nil
}

func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

// nextLink is the URL of a Link header's rel="next", or "".
func nextLink(h http.Header) string {
	for _, v := range h.Values("Link") {
		for _, part := range strings.Split(v, ",") {
			target, params, ok := strings.Cut(strings.TrimSpace(part), ";")
			if !ok {
				continue
			}
			if strings.Contains(strings.ReplaceAll(params, " ", ""), `rel="next"`) {
				return strings.Trim(strings.TrimSpace(target), "<>")
			}
		}
	}
	return ""
}
