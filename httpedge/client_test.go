package httpedge_test

import (
	"net/http"
	"net/netip"
	"testing"

	"github.com/haulgraph/haulgraph/httpedge"
)

// The client address rule: only a trusted peer's headers are read, from the
// right, skipping trusted hops; nothing left of the first untrusted hop (the
// client's own say) counts.
func TestProxiesClient(t *testing.T) {
	t.Parallel()
	proxies, err := httpedge.ParseProxies("10.0.0.0/8, 192.0.2.1, 2001:db8:f::/48")
	if err != nil {
		t.Fatal(err)
	}
	const (
		lb     = "10.1.1.1"
		direct = "198.51.100.9"
	)
	for _, c := range []struct {
		name, peer string
		h          http.Header
		want       string
	}{
		{"untrusted peer, no header", direct, nil, direct},
		{"untrusted peer forging XFF", direct, http.Header{"X-Forwarded-For": {"203.0.113.5"}}, direct},
		{"untrusted peer forging Forwarded", direct, http.Header{"Forwarded": {"for=203.0.113.5"}}, direct},
		{"untrusted peer in 4in6 form", "::ffff:198.51.100.9", http.Header{"X-Forwarded-For": {"203.0.113.5"}}, direct},
		{"trusted peer without header", lb, nil, lb},
		{"XFF one hop", lb, http.Header{"X-Forwarded-For": {"203.0.113.5"}}, "203.0.113.5"},
		{"XFF with port", lb, http.Header{"X-Forwarded-For": {"203.0.113.5:4711"}}, "203.0.113.5"},
		{"XFF forged left part ignored", lb, http.Header{"X-Forwarded-For": {"1.2.3.4, 203.0.113.5"}}, "203.0.113.5"},
		{"XFF several trusted hops", lb, http.Header{"X-Forwarded-For": {"1.2.3.4, 203.0.113.5, 10.9.9.9, 192.0.2.1"}}, "203.0.113.5"},
		{"XFF over several lines", lb, http.Header{"X-Forwarded-For": {"1.2.3.4, 203.0.113.5", "10.9.9.9"}}, "203.0.113.5"},
		{"XFF IPv6", lb, http.Header{"X-Forwarded-For": {"2001:db8:1::7"}}, "2001:db8:1::7"},
		{"XFF bracketed IPv6 with port", lb, http.Header{"X-Forwarded-For": {"[2001:db8:1::7]:443"}}, "2001:db8:1::7"},
		{"XFF trusted IPv6 hop", lb, http.Header{"X-Forwarded-For": {"2001:db8:1::7, 2001:db8:f::1"}}, "2001:db8:1::7"},
		{"XFF all trusted: the left-most", lb, http.Header{"X-Forwarded-For": {"10.3.3.3, 10.2.2.2"}}, "10.3.3.3"},
		{"XFF garbage: the last trusted hop", lb, http.Header{"X-Forwarded-For": {"203.0.113.5, <script>, 10.2.2.2"}}, "10.2.2.2"},
		{"XFF garbage right away: the peer", lb, http.Header{"X-Forwarded-For": {"1.2.3.4, unknown"}}, lb},
		{"XFF empty", lb, http.Header{"X-Forwarded-For": {""}}, lb},
		{"XFF wins over a client's Forwarded", lb, http.Header{"Forwarded": {"for=1.2.3.4"}, "X-Forwarded-For": {"203.0.113.5"}}, "203.0.113.5"},
		{"Forwarded one hop", lb, http.Header{"Forwarded": {"for=203.0.113.5;proto=https;by=10.1.1.1"}}, "203.0.113.5"},
		{"Forwarded quoted IPv6 with port", lb, http.Header{"Forwarded": {`for="[2001:db8:1::7]:4711"`}}, "2001:db8:1::7"},
		{"Forwarded case and spaces", lb, http.Header{"Forwarded": {`For=1.2.3.4, FOR = 203.0.113.5 ; proto=http`}}, "203.0.113.5"},
		{"Forwarded hops and trusted", lb, http.Header{"Forwarded": {`for=1.2.3.4, for=203.0.113.5`, `for="10.2.2.2"`}}, "203.0.113.5"},
		{"Forwarded quoted comma", lb, http.Header{"Forwarded": {`for=1.2.3.4;x="a,b", for=203.0.113.5;y="c;d,e"`}}, "203.0.113.5"},
		{"Forwarded obfuscated node", lb, http.Header{"Forwarded": {`for=1.2.3.4, for=_hidden`}}, lb},
		{"Forwarded unknown behind a trusted hop", lb, http.Header{"Forwarded": {`for=unknown, for=10.2.2.2`}}, "10.2.2.2"},
		{"Forwarded element without for", lb, http.Header{"Forwarded": {`for=1.2.3.4, proto=https`}}, lb},
		{"Forwarded obfuscated port", lb, http.Header{"Forwarded": {`for="203.0.113.5:_p1"`}}, "203.0.113.5"},
		{"Forwarded unbalanced quote", lb, http.Header{"Forwarded": {`for="203.0.113.5`}}, lb},
	} {
		got := proxies.Client(netip.MustParseAddr(c.peer), c.h)
		if got != netip.MustParseAddr(c.want) {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}

// HAULGRAPH_TRUSTED_PROXIES is a list of CIDRs (or addresses); anything
// else is refused.
func TestParseProxies(t *testing.T) {
	t.Parallel()
	p, err := httpedge.ParseProxies(" 10.0.0.1/8 ,,::ffff:192.0.2.0/120, 2001:db8::1 ")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"10.0.0.0/8", "192.0.2.0/24", "2001:db8::1/128"}
	if len(p) != len(want) {
		t.Fatalf("%v, want %v", p, want)
	}
	for i, w := range want {
		if p[i].String() != w {
			t.Errorf("%d: %s, want %s", i, p[i], w)
		}
	}
	if none, err := httpedge.ParseProxies(""); err != nil || len(none) != 0 || none.Trusts(netip.MustParseAddr("127.0.0.1")) {
		t.Errorf("empty: %v %v", none, err)
	}
	for _, bad := range []string{"nginx", "10.0.0.0/33", "10.0.0.0/8;", "fe80::1%eth0", "10.0.0.0/8,*"} {
		if _, err := httpedge.ParseProxies(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
