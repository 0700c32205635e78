package app

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/haulgraph/haulgraph/httpedge"
)

// HTTPLimits bound what one connection may hold of the public server; zero
// fields take the defaults below (HAULGRAPH_HTTP_* variables, docs/security.md).
type HTTPLimits struct {
	// ReadHeaderTimeout bounds reading a request's line and headers
	// (HAULGRAPH_HTTP_READ_HEADER_TIMEOUT).
	ReadHeaderTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that sends no next request
	// (HAULGRAPH_HTTP_IDLE_TIMEOUT).
	IdleTimeout time.Duration
	// BodyTimeout is the longest a request body may go without a byte, and
	// the grace before BodyMinRate applies (HAULGRAPH_HTTP_BODY_TIMEOUT).
	BodyTimeout time.Duration
	// BodyMinRate is the slowest average a body may arrive at after the
	// grace, in bytes per second (HAULGRAPH_HTTP_BODY_MIN_RATE).
	BodyMinRate int64
	// WriteTimeout is the longest one write to a client may block: a client
	// that stops reading a response (an export, an event stream) is cut
	// after it (HAULGRAPH_HTTP_WRITE_TIMEOUT).
	WriteTimeout time.Duration
	// MaxConnsPerAddr bounds the connections open from one client address
	// (HAULGRAPH_HTTP_MAX_CONNS_PER_ADDR); negative: no bound.
	MaxConnsPerAddr int
	// TrustedProxies may name the client: in a PROXY protocol header, or
	// else in X-Forwarded-For or Forwarded (HAULGRAPH_TRUSTED_PROXIES;
	// httpedge.Proxies.Client).
	TrustedProxies httpedge.Proxies
	// ProxyProtocol requires a PROXY header of every connection from
	// TrustedProxies (HAULGRAPH_PROXY_PROTOCOL=on).
	ProxyProtocol bool
}

// Defaults of HTTPLimits.
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultIdleTimeout       = 60 * time.Second
	DefaultBodyTimeout       = 10 * time.Second
	DefaultBodyMinRate       = 4096
	DefaultWriteTimeout      = 30 * time.Second
	DefaultMaxConnsPerAddr   = 256
)

// httpLimitsFromEnv reads the HAULGRAPH_HTTP_* bounds; unset ones keep
// their defaults. HAULGRAPH_HTTP_MAX_CONNS_PER_ADDR=0 lifts the per-address
// cap.
func httpLimitsFromEnv(l *HTTPLimits) error {
	for env, dst := range map[string]*time.Duration{
		"HAULGRAPH_HTTP_READ_HEADER_TIMEOUT": &l.ReadHeaderTimeout,
		"HAULGRAPH_HTTP_IDLE_TIMEOUT":        &l.IdleTimeout,
		"HAULGRAPH_HTTP_BODY_TIMEOUT":        &l.BodyTimeout,
		"HAULGRAPH_HTTP_WRITE_TIMEOUT":       &l.WriteTimeout,
	} {
		if v := os.Getenv(env); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("%s: a positive duration, got %q", env, v)
			}
			*dst = d
		}
	}
	if v := os.Getenv("HAULGRAPH_HTTP_BODY_MIN_RATE"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("HAULGRAPH_HTTP_BODY_MIN_RATE: a positive number of bytes per second, got %q", v)
		}
		l.BodyMinRate = n
	}
	if v := os.Getenv("HAULGRAPH_HTTP_MAX_CONNS_PER_ADDR"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("HAULGRAPH_HTTP_MAX_CONNS_PER_ADDR: a number of connections (0: no cap), got %q", v)
		}
		l.MaxConnsPerAddr = n
		if n == 0 {
			l.MaxConnsPerAddr = -1
		}
	}
	p, err := httpedge.ParseProxies(os.Getenv("HAULGRAPH_TRUSTED_PROXIES"))
	if err != nil {
		return fmt.Errorf("HAULGRAPH_TRUSTED_PROXIES: comma-separated CIDRs of the load balancers: %w", err)
	}
	l.TrustedProxies = p
	switch v := os.Getenv("HAULGRAPH_PROXY_PROTOCOL"); v {
	case "", "off":
	case "on":
		if len(p) == 0 {
			return errors.New("HAULGRAPH_PROXY_PROTOCOL=on needs HAULGRAPH_TRUSTED_PROXIES: the load balancers that send the PROXY header")
		}
		l.ProxyProtocol = true
	default:
		return fmt.Errorf("HAULGRAPH_PROXY_PROTOCOL: on or off, got %q", v)
	}
	return nil
}
