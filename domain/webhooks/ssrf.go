package webhooks

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
		if !AddrAllowed(a, allowInsecure) {
			return msgNotPublic
		}
	}
	return ""
}

// AddrAllowed reports whether a webhook request may connect to a:
// a public address, or with the development flag plain loopback (127/8,
// ::1, ::ffff:127/104), never a loopback address spelled through a
// translation prefix (64:ff9b::7f00:1 is not this host).
func AddrAllowed(a netip.Addr, allowLoopback bool) bool {
	return PublicAddr(a) || (allowLoopback && a.Zone() == "" && a.IsLoopback())
}

// PublicAddr is the one definition of an address webhooks may reach: a
// globally reachable unicast address per IANA's IPv4 and IPv6
// Special-Purpose Address Registries. IPv6 forms that embed an IPv4 address
// are judged so: IPv4-mapped (::ffff:0:0/96, what a dual-stack socket dials
// as IPv4) and NAT64's well-known prefix (64:ff9b::/96, which RFC 6052 keeps
// for global IPv4 addresses) by the IPv4 address they carry; every other
// one (64:ff9b:1::/48, 6to4, IPv4-compatible, SIIT, Teredo) is refused
// whole, whatever it carries. Of IPv6 only global unicast (2000::/3) is
// public. An address with a zone is link-scoped, never public.
func PublicAddr(a netip.Addr) bool {
	if !a.IsValid() || a.Zone() != "" {
		return false
	}
	if a.Is4In6() {
		a = a.Unmap()
	}
	if a.Is4() {
		return !inAny(a, notPublic4)
	}
	if nat64.Contains(a) {
		b := a.As16()
		return PublicAddr(netip.AddrFrom4([4]byte(b[12:])))
	}
	return globalUnicast6.Contains(a) && !inAny(a, notPublic6)
}

func inAny(a netip.Addr, ps []netip.Prefix) bool {
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

var (
	nat64          = netip.MustParsePrefix("64:ff9b::/96")
	globalUnicast6 = netip.MustParsePrefix("2000::/3")
)

// notPublic4 is IANA's IPv4 special-purpose registry (the ranges not
// globally reachable, and the documentation and benchmarking nets) with
// multicast and the reserved class E.
var notPublic4 = prefixes(
	"0.0.0.0/8",          // "this network"
	"10.0.0.0/8",         // private
	"100.64.0.0/10",      // shared address space (carrier-grade NAT)
	"127.0.0.0/8",        // loopback
	"169.254.0.0/16",     // link-local (cloud metadata)
	"172.16.0.0/12",      // private
	"192.0.0.0/24",       // IETF protocol assignments
	"192.0.2.0/24",       // TEST-NET-1
	"192.88.99.0/24",     // 6to4 relay anycast (deprecated)
	"192.168.0.0/16",     // private
	"198.18.0.0/15",      // benchmarking
	"198.51.100.0/24",    // TEST-NET-2
	"203.0.113.0/24",     // TEST-NET-3
	"224.0.0.0/4",        // multicast
	"240.0.0.0/4",        // reserved
	"255.255.255.255/32", // limited broadcast (inside 240/4; named for the record)
)

// notPublic6 is IANA's IPv6 special-purpose registry and the forms that
// carry IPv4. Those outside 2000::/3 are refused by the global-unicast rule
// already; they are listed so the table is the whole answer.
var notPublic6 = prefixes(
	"::/128",          // unspecified
	"::1/128",         // loopback
	"::/96",           // IPv4-compatible (deprecated)
	"::ffff:0:0:0/96", // SIIT, IPv4-translated
	"64:ff9b:1::/48",  // NAT64, local-use
	"100::/64",        // discard-only
	"100:0:0:1::/64",  // dummy prefix
	"2001::/23",       // IETF protocol assignments
	"2001::/32",       // Teredo (inside 2001::/23; named for the record)
	"2001:db8::/32",   // documentation
	"2002::/16",       // 6to4
	"3fff::/20",       // documentation
	"5f00::/16",       // segment routing (SRv6) SIDs
	"fc00::/7",        // unique local
	"fe80::/10",       // link-local
	"fec0::/10",       // site-local (deprecated)
	"ff00::/8",        // multicast
)

func prefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}
