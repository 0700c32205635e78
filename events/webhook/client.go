// Package webhook verifies webhook endpoints and delivers events to them:
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
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"

	"github.com/haulgraph/haulgraph/domain"
)

// UserAgent is the User-Agent of every request to an endpoint (spec 6.2).
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
}

// NewClient is the HTTP client of every webhook request: it checks every
// address it dials (after DNS resolution, so a name cannot rebind to an
// internal address), requires TLS 1.2 or higher, follows no redirects and
// sends no proxy-environment traffic.
func NewClient(opts ClientOptions) *http.Client {
	dialer := &net.Dialer{
		Timeout: 10 * time.Second,
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
			}
			a := ap.Addr().Unmap()
			if domain.PublicAddr(a) || (opts.AllowLoopback && a.IsLoopback()) {
				return nil
			}
			return fmt.Errorf("%w: %s", ErrForbiddenAddress, a)
		},
	}
	tr := &http.Transport{
		DialContext:           dialer.DialContext,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: opts.RootCAs},
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: domain.DeliveryTimeout,
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

// schemeAllowed refuses plain http unless the development flag is on.
func schemeAllowed(req *http.Request, allowInsecure bool) error {
	if req.URL.Scheme == "https" || (allowInsecure && req.URL.Scheme == "http") {
		return nil
	}
	return errors.New("endpoint must use https")
}

// traceparent returns a W3C traceparent continuing ctx's trace id, if any.
func traceparent(ctx context.Context) string {
	trace := domain.TraceIDFrom(ctx)
	if len(trace) != 32 {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		trace = hex.EncodeToString(b)
	}
	span := make([]byte, 8)
	_, _ = rand.Read(span)
	return "00-" + trace + "-" + hex.EncodeToString(span) + "-01"
}

// requestError is what a failed request is reported as, to the user (state
// reason, attempt log): its kind, never resolver or internal addresses.
func requestError(err error) error {
	var dnsErr *net.DNSError
	var opErr *net.OpError
	var tlsErr *tls.CertificateVerificationError
	var recErr tls.RecordHeaderError
	switch {
	case errors.Is(err, ErrForbiddenAddress):
		return ErrForbiddenAddress
	case errors.As(err, &dnsErr):
		return errors.New("request failed: the host name does not resolve")
	case errors.As(err, &tlsErr), errors.As(err, &recErr):
		return errors.New("request failed: TLS handshake failed")
	case errors.Is(err, syscall.ECONNREFUSED):
		return errors.New("request failed: connection refused")
	case errors.As(err, &opErr) && opErr.Timeout():
		return errors.New("request failed: connection timed out")
	default:
		return errors.New("request failed: no HTTP answer")
	}
}
