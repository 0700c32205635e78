package webhooks

import (
	"context"
	"errors"
	"github.com/haulgraph/haulgraph/domain"
	"net"
	"net/netip"
	"strings"
	"testing"
)

// hosts is an in-memory HostResolver (a zone file), as a DNS server would
// answer.
type hosts map[string][]string

func (h hosts) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	ips, ok := h[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, Server: "10.255.255.53:53", IsNotFound: true}
	}
	out := make([]netip.Addr, len(ips))
	for i, s := range ips {
		out[i] = netip.MustParseAddr(s)
	}
	return out, nil
}

// A URL is refused when saved if its name resolves inside, or its port is
// out of range; the message never names an address or the resolver.
func TestWebhookURLCheckedWhenSaved(t *testing.T) {
	t.Parallel()
	zone := hosts{
		"hooks.example.com": {"93.184.216.34"},
		"intranet.example":  {"10.1.2.3"},
		"mixed.example":     {"93.184.216.34", "192.168.0.10"},
		"loop.example":      {"127.0.0.1"},
		"metadata.example":  {"169.254.169.254"},
		"v6.example":        {"::1"},
		"ula.example":       {"fd00::1"},
	}
	for _, c := range []struct {
		url      string
		insecure bool
		want     string // "" = accepted
	}{
		{"https://hooks.example.com/h", false, ""},
		{"https://hooks.example.com:8443/h", false, ""},
		{"https://intranet.example/h", false, msgNotPublic},
		{"https://mixed.example/h", false, msgNotPublic},
		{"https://loop.example/h", false, msgNotPublic},
		{"https://metadata.example/latest", false, msgNotPublic},
		{"https://v6.example/h", false, msgNotPublic},
		{"https://ula.example/h", false, msgNotPublic},
		{"https://nowhere.example/h", false, "url host name does not resolve"},
		{"https://loop.example/h", true, ""}, // the development flag allows loopback
		{"https://intranet.example/h", true, msgNotPublic},
		{"https://hooks.example.com:0/h", false, "url port must be between 1 and 65535"},
		{"https://hooks.example.com:65536/h", false, "url port must be between 1 and 65535"},
		{"https://hooks.example.com:99999999999/h", false, "url port must be between 1 and 65535"},
		{"http://127.0.0.1:8080/h", true, ""},
		{"https://10.0.0.1/h", false, msgNotPublic},
	} {
		got := checkWebhookURL(c.url, c.insecure)
		if got == "" {
			got = checkResolvedURL(context.Background(), zone, c.url, c.insecure)
		}
		if got != c.want {
			t.Errorf("%s (insecure=%v): %q, want %q", c.url, c.insecure, got, c.want)
		}
		if strings.Contains(got, "10.255") || strings.Contains(got, "10.1.2.3") {
			t.Errorf("%s: message shows an internal address: %q", c.url, got)
		}
	}
}

// Create and Update refuse such URLs as a field error before storing.
func TestCreateAndUpdateRefuseInternalHosts(t *testing.T) {
	t.Parallel()
	svc := &Service{Resolver: hosts{"intranet.example": {"10.1.2.3"}}}
	ctx := domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: [16]byte{1}, Scopes: []domain.Scope{domain.ScopeWebhookManage}})
	name, u := "erp", "https://intranet.example/h"
	// No subsidiary: the store is never asked, and the url has its own error.
	_, _, err := svc.Create(ctx, Input{Name: &name, URL: &u, EventTypes: []string{domain.EventLoadChanged}})
	var de *domain.Error
	if !errors.As(err, &de) || de.Code != domain.CodeInvalid || len(de.Fields["url"]) != 1 || de.Fields["url"][0] != msgNotPublic {
		t.Fatalf("create: %v", err)
	}
	_, err = svc.Update(ctx, [16]byte{3}, Input{URL: &u})
	if !errors.As(err, &de) || de.Code != domain.CodeInvalid || de.Fields["url"][0] != msgNotPublic {
		t.Fatalf("update: %v", err)
	}
}

// Every special-purpose address of both registries, and every IPv6 form
// that embeds or translates an internal IPv4 address, is not public.
func TestPublicAddr(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr   string
		public bool
	}{
		{"93.184.216.34", true}, {"8.8.8.8", true}, {"1.1.1.1", true}, {"2606:4700::1111", true}, {"2a00:1450:4001::1", true},
		// NAT64's well-known prefix is judged by the IPv4 address it carries.
		{"64:ff9b::5db8:d822", true}, {"64:ff9b::808:808", true},
		{"64:ff9b::7f00:1", false}, {"64:ff9b::a9fe:a9fe", false}, {"64:ff9b::a00:1", false}, {"64:ff9b::c0a8:101", false},
		{"64:ff9b::c000:201", false}, {"64:ff9b::", false},
		// IPv4-mapped likewise (a dual-stack socket dials the IPv4 address).
		{"::ffff:93.184.216.34", true}, {"::ffff:127.0.0.1", false}, {"::ffff:169.254.169.254", false}, {"::ffff:10.0.0.1", false},
		// Refused whole, whatever they carry.
		{"64:ff9b:1::5db8:d822", false}, {"64:ff9b:1::a00:1", false},
		{"2002:5db8:d822::1", false}, {"2002:7f00:1::", false}, {"2002:a9fe:a9fe::1", false},
		{"::93.184.216.34", false}, {"::127.0.0.1", false}, {"::a9fe:a9fe", false},
		{"::ffff:0:5db8:d822", false}, {"::ffff:0:7f00:1", false},
		{"2001:0:4136:e378:8000:63bf:3fff:fdd2", false}, {"2001::1", false},
		// IPv4 special-purpose.
		{"0.0.0.0", false}, {"0.1.2.3", false}, {"10.1.2.3", false}, {"100.64.0.1", false}, {"100.127.255.255", false},
		{"127.0.0.1", false}, {"127.255.255.254", false}, {"169.254.169.254", false}, {"172.16.0.1", false},
		{"172.31.255.255", false}, {"192.0.0.1", false}, {"192.0.0.9", false}, {"192.0.2.1", false}, {"192.88.99.1", false},
		{"192.168.1.1", false}, {"198.18.0.1", false}, {"198.19.255.255", false}, {"198.51.100.1", false},
		{"203.0.113.1", false}, {"224.0.0.1", false}, {"239.255.255.250", false}, {"240.0.0.1", false},
		{"255.255.255.255", false},
		{"100.63.255.255", true}, {"100.128.0.0", true}, {"172.15.255.255", true}, {"172.32.0.0", true}, {"198.17.255.255", true},
		{"198.20.0.0", true}, {"223.255.255.255", true}, {"192.0.3.1", true},
		// IPv6 special-purpose.
		{"::", false}, {"::1", false}, {"100::1", false}, {"100:0:0:1::1", false}, {"2001:2::1", false}, {"2001:1ff::1", false},
		{"2001:db8::1", false}, {"3fff::1", false}, {"3fff:fff::1", false}, {"5f00::1", false}, {"fc00::1", false},
		{"fd12:3456::1", false}, {"fe80::1", false}, {"fec0::1", false}, {"feff::1", false}, {"ff02::1", false},
		{"ff0e::1", false}, {"4000::1", false}, {"1::1", false},
		{"2001:200::1", true}, {"3fff:1000::1", true},
		// A zone makes an address link-scoped.
		{"2606:4700::1111%eth0", false}, {"fe80::1%eth0", false},
	} {
		a := netip.MustParseAddr(c.addr)
		if got := PublicAddr(a); got != c.public {
			t.Errorf("PublicAddr(%s) = %v, want %v", c.addr, got, c.public)
		}
	}
	for _, p := range append(append([]netip.Prefix{}, notPublic4...), notPublic6...) {
		if PublicAddr(p.Addr()) || PublicAddr(lastOf(p)) {
			t.Errorf("%s: an end of the range is public", p)
		}
	}
}

// lastOf is the highest address of p.
func lastOf(p netip.Prefix) netip.Addr {
	b := p.Addr().AsSlice()
	for i := p.Bits(); i < len(b)*8; i++ {
		b[i/8] |= 0x80 >> (i % 8)
	}
	a, _ := netip.AddrFromSlice(b)
	return a
}

// The development flag admits plain loopback only, never one spelled
// through a translation prefix.
func TestWebhookAddrAllowedLoopback(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		addr string
		dev  bool
	}{{"127.0.0.1", true}, {"127.1.2.3", true}, {"::1", true}, {"::ffff:127.0.0.1", true},
		{"64:ff9b::7f00:1", false}, {"::127.0.0.1", false}, {"2002:7f00:1::", false}, {"::ffff:0:7f00:1", false},
		{"::1%lo", false}, {"10.0.0.1", false}, {"169.254.169.254", false}} {
		a := netip.MustParseAddr(c.addr)
		if AddrAllowed(a, false) || AddrAllowed(a, true) != c.dev {
			t.Errorf("%s: allowed %v/%v, want false/%v", c.addr, AddrAllowed(a, false), AddrAllowed(a, true), c.dev)
		}
	}
}

// FuzzPublicAddr: an address is public only if no form of it reaches
// inside: its IPv4-mapped and NAT64 forms agree with the IPv4 address, a
// public IPv6 address is global unicast outside every listed range, and the
// URL check agrees with the classifier on literal hosts.
func FuzzPublicAddr(f *testing.F) {
	for _, s := range []string{"93.184.216.34", "127.0.0.1", "64:ff9b::7f00:1", "2002:7f00:1::", "::127.0.0.1",
		"::ffff:0:7f00:1", "2001::1", "fec0::1", "100::1", "2606:4700::1111", "fe80::1%eth0"} {
		a := netip.MustParseAddr(s)
		b := a.As16()
		f.Add(b[:], a.Zone())
	}
	nat := nat64.Addr().As16()
	f.Fuzz(func(t *testing.T, raw []byte, zone string) {
		if len(raw) != 16 {
			return
		}
		a := netip.AddrFrom16([16]byte(raw))
		pub := PublicAddr(a)
		if a.Is4In6() && pub != PublicAddr(a.Unmap()) {
			t.Fatalf("%s and its IPv4 address disagree", a)
		}
		if pub && a.Is6() && !a.Is4In6() {
			if !globalUnicast6.Contains(a) && !nat64.Contains(a) {
				t.Fatalf("%s is public outside 2000::/3", a)
			}
			if inAny(a, notPublic6) {
				t.Fatalf("%s is public inside a special-purpose range", a)
			}
		}
		if v4 := a.Unmap(); v4.Is4() {
			b := v4.As4()
			n := nat
			copy(n[12:], b[:])
			if PublicAddr(netip.AddrFrom16(n)) != PublicAddr(v4) {
				t.Fatalf("%s and its NAT64 form disagree", v4)
			}
			if pub && inAny(v4, notPublic4) {
				t.Fatalf("%s is public inside a special-purpose range", v4)
			}
		}
		if zone != "" && a.Is6() && !a.Is4In6() && PublicAddr(a.WithZone(zone)) {
			t.Fatalf("%s%%%s: a zoned address is public", a, zone)
		}
		host := a.String()
		if a.Is6() {
			host = "[" + host + "]"
		}
		if msg := checkWebhookURL("https://"+host+"/h", false); (msg == "") != pub {
			t.Fatalf("checkWebhookURL(%s) = %q, PublicAddr = %v", host, msg, pub)
		}
	})
}
