package httpedge

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the peers trusted to name the client they forward
// (HAULGRAPH_TRUSTED_PROXIES): in a PROXY protocol header, or else in
// X-Forwarded-For or Forwarded. From any other peer those are ignored and the
// peer is the client.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of CIDRs (an address alone is
// its own /32 or /128); empty trusts no one.
func ParseProxies(s string) (Proxies, error) {
	var p Proxies
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		pre, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil || a.Zone() != "" {
				return nil, fmt.Errorf("%q is not a CIDR such as 10.0.0.0/8 or 2001:db8::/32", f)
			}
			pre = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen())
		}
		if pre.Addr().Is4In6() {
			pre = netip.PrefixFrom(pre.Addr().Unmap(), max(pre.Bits()-96, 0))
		}
		p = append(p, pre.Masked())
	}
	return p, nil
}

// Trusts reports whether a is one of the proxies.
func (p Proxies) Trusts(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	for _, pre := range p {
		if pre.Contains(a) {
			return true
		}
	}
	return false
}

// Client is the client of a request that came from peer with header h:
// the peer itself unless it is a trusted proxy; from a proxy, the right-most
// address of X-Forwarded-For (or, when there is none, of Forwarded's for=)
// that is not itself a trusted proxy. The proxy appends the address it saw,
// so everything to the left of the first untrusted hop is the client's own
// say and is never read. A hop that is no address (unknown, an obfuscated
// node, garbage) ends the walk at the last trusted hop before it; a chain of
// trusted hops only gives its left-most.
//
// X-Forwarded-For comes first because the proxies operators run (nginx,
// HAProxy's forwardfor, AWS ALB) append to it and pass a client's Forwarded
// through untouched.
func (p Proxies) Client(peer netip.Addr, h http.Header) netip.Addr {
	peer = peer.Unmap()
	if !p.Trusts(peer) {
		return peer
	}
	var hops []string
	if xff := h.Values("X-Forwarded-For"); len(xff) > 0 {
		for _, v := range xff {
			hops = append(hops, strings.Split(v, ",")...)
		}
	} else {
		for _, v := range h.Values("Forwarded") {
			hops = append(hops, forwardedFor(v)...)
		}
	}
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		a, ok := parseNode(hops[i])
		if !ok {
			return client
		}
		if !p.Trusts(a) {
			return a
		}
		client = a
	}
	return client
}

// forwardedFor is the for= node of each element of a Forwarded field value
// (RFC 7239), in order; an element without one is "" (an unknown hop).
// Commas and semicolons inside quoted strings do not split.
func forwardedFor(v string) []string {
	var nodes []string
	for _, elem := range splitQuoted(v, ',') {
		node := ""
		for _, pair := range splitQuoted(elem, ';') {
			k, val, _ := strings.Cut(pair, "=")
			if strings.EqualFold(strings.TrimSpace(k), "for") {
				node = unquote(strings.TrimSpace(val))
			}
		}
		nodes = append(nodes, node)
	}
	return nodes
}

// splitQuoted splits s at sep outside double quotes.
func splitQuoted(s string, sep byte) []string {
	var parts []string
	quoted, escaped, start := false, false, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
		case c == '"':
			quoted = !quoted
		case !quoted && c == sep:
			parts = append(parts, s[start:i])
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

func unquote(s string) string {
	if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' {
		return s
	}
	var b strings.Builder
	for i := 1; i < len(s)-1; i++ {
		if s[i] == '\\' && i+1 < len(s)-1 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// parseNode reads a hop: an address, with or without a port, IPv6 with or
// without brackets. "unknown", obfuscated nodes ("_x") and garbage are not.
func parseNode(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap().WithZone(""), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap().WithZone(""), true
	}
	if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
		if a, err := netip.ParseAddr(s[1 : len(s)-1]); err == nil && a.Is6() {
			return a.Unmap().WithZone(""), true
		}
	}
	if host, _, err := net.SplitHostPort(s); err == nil { // an obfuscated port ("1.2.3.4:_p")
		if a, err := netip.ParseAddr(host); err == nil {
			return a.Unmap().WithZone(""), true
		}
	}
	return netip.Addr{}, false
}

type clientKey struct{}

// ClientHost is the address of the request's client (Clients.Wrap decided
// it), without port: the key of every per-address bound and what the logs
// and traces record. Outside Wrap it is the peer's.
func ClientHost(r *http.Request) string {
	if a, ok := r.Context().Value(clientKey{}).(netip.Addr); ok {
		return a.String()
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// Clients decides each request's client address (ClientHost) by Proxies.
type Clients struct{ Proxies Proxies }

// Wrap records the client of every request through next: the source of the
// connection's PROXY header when it had one (Listen), else Proxies.Client
// of the peer and the request's headers.
func (c Clients) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ap, err := netip.ParseAddrPort(r.RemoteAddr)
		if err != nil {
			next.ServeHTTP(w, r)
			return
		}
		client := ap.Addr().Unmap()
		if ec, ok := r.Context().Value(connKey{}).(*edgeConn); !ok || !ec.proxied() {
			client = c.Proxies.Client(client, r.Header)
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientKey{}, client)))
	})
}
