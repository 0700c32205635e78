package domain

import (
	"context"
	"net/netip"
	"net/url"
	"time"
)

// HostResolver resolves a host name (net.Resolver is one).
type HostResolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// urlResolveTimeout bounds the lookup made when a URL is saved.
const urlResolveTimeout = 3 * time.Second

// msgNotPublic is the one answer for a URL that reaches inside.
const msgNotPublic = "url must be publicly reachable (private, loopback and link-local addresses are refused)"

// checkResolvedURL refuses, when the URL is saved, a host name that resolves
// to an address webhooks may not reach (the delivery client checks again at
// dial time, as DNS can change). The message never names an address or the
// resolver.
func checkResolvedURL(ctx context.Context, r HostResolver, raw string, allowInsecure bool) string {
	u, err := url.Parse(raw)
	if err != nil || r == nil {
		return ""
	}
	host := u.Hostname()
	if _, err := netip.ParseAddr(host); err == nil {
		return "" // literal addresses are judged by checkWebhookURL
	}
	ctx, cancel := context.WithTimeout(ctx, urlResolveTimeout)
	defer cancel()
	addrs, err := r.LookupNetIP(ctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return "url host name does not resolve"
	}
	for _, a := range addrs {
		if !PublicAddr(a) && !(allowInsecure && a.Unmap().IsLoopback()) {
			return msgNotPublic
		}
	}
	return ""
}
