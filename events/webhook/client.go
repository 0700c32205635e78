// Package webhook challenges webhook endpoints and delivers events to them:
// the dispatcher turns outbox events into deliveries, the worker sends them,
// signed, with retries.
package webhook

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// UserAgent is the User-Agent of every request to an endpoint (docs/api-contract.md §6.2).
const UserAgent = "Service-Webhook/1.0"

// ErrForbiddenAddress is returned when an endpoint resolves to an address
// webhooks must not reach (SSRF protection).
var ErrForbiddenAddress = errors.New("endpoint address is not publicly reachable")

// ClientOptions tune the outbound HTTP client.
type ClientOptions struct {
	// AllowLoopback is the development flag: loopback addresses (and plain
	// http://) may be reached. Private and link-local ones never are.
	AllowLoopback bool
	// RootCAs overrides the system roots (tests trust their TLS receiver).
	RootCAs *x509.CertPool
	// Resolver, when set, resolves host names instead of the system's
	// resolver (tests answer a name with an internal address); every address
	// it answers is still checked as it is dialled.
	Resolver webhooks.HostResolver
}

// NewClient is the HTTP client of every webhook request: it checks every
// address it dials (after DNS resolution, so a name cannot rebind to an
// internal address), requires TLS 1.2 or higher, follows no redirects and
// sends no proxy-environment traffic.
func NewClient(opts ClientOptions) *http.Client {
	dialer := guardedDialer(opts.AllowLoopback)
	dial := dialer.DialContext
	if opts.Resolver != nil {
		dial = resolvingDial(dialer, opts.Resolver)
	}
	tr := &http.Transport{
		DialContext:           dial,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: opts.RootCAs},
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: webhooks.DeliveryTimeout,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ForceAttemptHTTP2:     true,
	}
	return &http.Client{
		Transport: tr,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse // a redirect is an answer, not a hop (it could point inside)
		},
	}
}

// guardedDialer checks every address it dials, after DNS resolution, so a
// name cannot rebind to an internal address: the one dialer of webhook
// requests and broker connections.
func guardedDialer(allowLoopback bool) *net.Dialer {
	return &net.Dialer{
		Timeout: 10 * time.Second,
		// Control sees the address actually dialled, after DNS.
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || !webhooks.AddrAllowed(ap.Addr(), allowLoopback) {
				return ErrForbiddenAddress
			}
			return nil
		},
	}
}

// resolvingDial dials host names through r, each answer in turn.
func resolvingDial(d *net.Dialer, r webhooks.HostResolver) func(ctx context.Context, network, address string) (net.Conn, error) {
	return func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		if _, err := netip.ParseAddr(host); err == nil {
			return d.DialContext(ctx, network, address)
		}
		addrs, err := r.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		var errs []error
		for _, a := range addrs {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
			if err == nil {
				return c, nil
			}
			errs = append(errs, err)
		}
		if len(errs) == 0 {
			return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
		}
		return nil, errors.Join(errs...)
	}
}

// schemeAllowed refuses plain http unless the development flag is on.
func schemeAllowed(req *http.Request, allowInsecure bool) error {
	if req.URL.Scheme == "https" || (allowInsecure && req.URL.Scheme == "http") {
		return nil
	}
	return errors.New("endpoint must use https")
}

// traceparent returns a W3C traceparent naming ctx's span (the delivery
// attempt's, when tracing is on), or continuing ctx's trace id, if any. The
// flags say sampled, as the published header does.
func traceparent(ctx context.Context) string {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		return "00-" + sc.TraceID().String() + "-" + sc.SpanID().String() + "-01"
	}
	id := domain.TraceIDFrom(ctx)
	if len(id) != 32 {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		id = hex.EncodeToString(b)
	}
	span := make([]byte, 8)
	_, _ = rand.Read(span)
	return "00-" + id + "-" + hex.EncodeToString(span) + "-01"
}

// NoAnswer is the reason of every request that got no HTTP answer: the
// name did not resolve, the address is refused, the port is closed or
// filtered, TLS failed, another protocol answered, or nothing came in time.
// One reason for all of them, as reasons that told them apart would let a
// tenant map a network port by port; the cause goes to the server's log.
const NoAnswer = "request failed: no HTTP answer from the endpoint"

// noAnswer reports a request without an HTTP answer as NoAnswer; errors.Is
// and errors.As still see the cause.
type noAnswer struct{ cause error }

func (noAnswer) Error() string   { return NoAnswer }
func (e noAnswer) Unwrap() error { return e.cause }

// Cause is the detail of a failed request, for the server's log only.
func Cause(err error) error {
	var na noAnswer
	if errors.As(err, &na) {
		return na.cause
	}
	var nb noBroker
	if errors.As(err, &nb) {
		return nb.cause
	}
	return err
}
