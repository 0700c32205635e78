package haulgraph

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Response is the metadata of the answer a call ended with.
type Response struct {
	StatusCode int
	// RequestID identifies the request in the server's logs and traces:
	// the trace id of the answer's traceparent header.
	RequestID string
	// RateLimit is what the RateLimit-* headers said.
	RateLimit RateLimit
	// Attempts is how many times the request was sent (retries included,
	// a repeat with a renewed token not).
	Attempts int
	Header   http.Header
}

// RateLimit is the binding bucket of the answer's RateLimit-* headers.
type RateLimit struct {
	Limit, Remaining int
	Reset            time.Duration
}

// APIResource is embedded in every result: LastResponse is the metadata
// of the answer it came in.
type APIResource struct {
	LastResponse *Response `json:"-"`
}

func newResponse(res *http.Response, attempts int) *Response {
	h := res.Header
	r := &Response{StatusCode: res.StatusCode, RequestID: requestID(h), Attempts: attempts, Header: h}
	r.RateLimit.Limit, _ = strconv.Atoi(h.Get("RateLimit-Limit"))
	r.RateLimit.Remaining, _ = strconv.Atoi(h.Get("RateLimit-Remaining"))
	if s, err := strconv.Atoi(h.Get("RateLimit-Reset")); err == nil {
		r.RateLimit.Reset = time.Duration(s) * time.Second
	}
	return r
}

// requestID is the trace id of a traceparent header
// ("00-<trace id>-<span id>-<flags>").
func requestID(h http.Header) string {
	parts := strings.Split(h.Get("traceparent"), "-")
	if len(parts) == 4 {
		return parts[1]
	}
	return ""
}

// request is one call: what to send and whether it may be sent again.
type request struct {
	method string
	path   string // absolute path, or a full URL of the same origin (Link)
	query  url.Values
	body   []byte
	ctype  string
	accept string
	// idempotent: sending it twice does what sending it once does (GET,
	// PUT, DELETE, searches, queries, the token request).
	idempotent bool
	// stream: the body is handed over unread; the timeout stops at the
	// headers.
	stream bool
	noAuth bool
}

func jsonBody(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // the SDK's own types always encode
	}
	return b
}

// do sends r and decodes a JSON answer into out (nil: discard it).
func (c *Client) do(ctx context.Context, r request, out any) (*Response, error) {
	res, meta, release, err := c.send(ctx, r)
	if err != nil {
		return nil, err
	}
	defer release()
	defer res.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, res.Body)
		return meta, nil
	}
	if err := json.NewDecoder(res.Body).Decode(out); err != nil {
		return meta, fmt.Errorf("haulgraph: %s %s: decoding the answer: %w", r.method, res.Request.URL.Path, err)
	}
	return meta, nil
}

// The retry rules. The server refuses a 429 before doing any work
// (httpedge's rate limiter answers ahead of the handlers) and answers 503
// when the database cannot be reached, after rolling the transaction back
// (domain.ErrUnavailable), or when an export cannot start yet: both are
// safe to send again whatever the method. A 500, 502 or 504, or a
// connection lost after the request was sent, may come after the work was
// done, so only requests that can be repeated safely are sent again.

func retryableStatus(status int, idempotent bool) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		return true
	case http.StatusInternalServerError, http.StatusBadGateway, http.StatusGatewayTimeout:
		return idempotent
	}
	return false
}

// notSent reports whether err happened before the request left: the
// connection was never made (refused, unreachable, DNS).
func notSent(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// backoff is the wait before retry n (from 0) without a Retry-After: full
// jitter over min(8 s, 0.5 s · 2^n).
func (c *Client) backoff(n int) time.Duration {
	ceiling := 8 * time.Second
	if n < 5 {
		ceiling = min(ceiling, 500*time.Millisecond<<n)
	}
	return c.cfg.jitter(ceiling)
}

// send runs r under the retry rules. On success the caller closes the body
// and then calls release.
func (c *Client) send(ctx context.Context, r request) (*http.Response, *Response, func(), error) {
	u, err := c.resolve(r.path)
	if err != nil {
		return nil, nil, nil, err
	}
	if r.query != nil {
		u.RawQuery = r.query.Encode()
	}
	refreshed := false
	attempts := 0
	for retry := 0; ; retry++ {
		attempts++
		actx, cancel := context.WithCancel(ctx)
		var timer *time.Timer
		if c.cfg.timeout > 0 {
			timer = time.AfterFunc(c.cfg.timeout, cancel)
		}
		release := func() {
			if timer != nil {
				timer.Stop()
			}
			cancel()
		}
		res, access, err := c.once(actx, u, r)
		var apiErr *Error
		switch {
		case err != nil:
			release()
			if ctx.Err() != nil {
				return nil, nil, nil, ctx.Err()
			}
			var te tokenError
			if errors.As(err, &te) { // the token request ran its own retries
				return nil, nil, nil, te.err
			}
			if !notSent(err) && !r.idempotent {
				return nil, nil, nil, err
			}
		case res.StatusCode < 400:
			if r.stream && timer != nil {
				timer.Stop()
			}
			return res, newResponse(res, attempts), release, nil
		default:
			apiErr = readError(res, c.cfg.now())
			apiErr.Response = newResponse(res, attempts)
			release()
			// A refused token (revoked, or its key rotated out) is
			// replaced once; the request was not acted on.
			if res.StatusCode == http.StatusUnauthorized && access != "" && !refreshed && c.dropToken(access) {
				refreshed = true
				attempts--
				retry--
				continue
			}
			if !retryableStatus(res.StatusCode, r.idempotent) {
				return nil, nil, nil, apiErr
			}
			err = apiErr
		}
		if retry >= c.cfg.maxRetries {
			return nil, nil, nil, err
		}
		wait := c.backoff(retry)
		if apiErr != nil && apiErr.RetryAfter > 0 {
			if apiErr.RetryAfter > c.cfg.maxWait {
				return nil, nil, nil, apiErr
			}
			wait = apiErr.RetryAfter
		}
		if c.cfg.onRetry != nil {
			c.cfg.onRetry(RetryInfo{Attempt: attempts, Wait: wait, Err: err})
		}
		if err := c.cfg.sleep(ctx, wait); err != nil {
			return nil, nil, nil, err
		}
	}
}

func (c *Client) resolve(path string) (*url.URL, error) {
	ref, err := url.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("haulgraph: %w", err)
	}
	u := c.cfg.base.ResolveReference(ref)
	// A Link must stay on the instance the token is for.
	if u.Host != c.cfg.base.Host || u.Scheme != c.cfg.base.Scheme {
		return nil, fmt.Errorf("haulgraph: refusing to follow %s off %s", u.Redacted(), c.cfg.base.Host)
	}
	return u, nil
}

// once sends r one time and returns the answer with the token it carried.
func (c *Client) once(ctx context.Context, u *url.URL, r request) (*http.Response, string, error) {
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, u.String(), body)
	if err != nil {
		return nil, "", fmt.Errorf("haulgraph: %w", err)
	}
	req.Header.Set("User-Agent", c.cfg.userAgent)
	req.Header.Set("Accept", "application/json")
	if r.accept != "" {
		req.Header.Set("Accept", r.accept)
	}
	if r.ctype != "" {
		req.Header.Set("Content-Type", r.ctype)
	}
	var access string
	if !r.noAuth {
		tok, err := c.Token(ctx)
		if err != nil {
			return nil, "", tokenError{err}
		}
		access = tok.AccessToken
		req.Header.Set("Authorization", "Bearer "+access)
	}
	res, err := c.cfg.http.Do(req)
	if err != nil {
		return nil, "", fmt.Errorf("haulgraph: %s %s: %w", r.method, u.Path, err)
	}
	return res, access, nil
}

// tokenError is a failed token request inside a call.
type tokenError struct{ err error }

func (e tokenError) Error() string { return e.err.Error() }
func (e tokenError) Unwrap() error { return e.err }

// parseRetryAfter reads seconds or an HTTP date (RFC 9110 §10.2.3).
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
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

type cancelOnClose struct {
	io.ReadCloser
	release func()
}

func (c *cancelOnClose) Close() error {
	err := c.ReadCloser.Close()
	c.release()
	return err
}
