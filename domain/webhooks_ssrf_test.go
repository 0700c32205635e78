package domain

import (
	"context"
	"errors"
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
	svc := &Webhooks{Resolver: hosts{"intranet.example": {"10.1.2.3"}}}
	ctx := WithPrincipal(context.Background(), &Principal{TenantID: [16]byte{1}, Scopes: []Scope{ScopeWebhookManage}})
	name, u := "erp", "https://intranet.example/h"
	// No subsidiary: the store is never asked, and the url has its own error.
	_, _, err := svc.Create(ctx, WebhookInput{Name: &name, URL: &u, EventTypes: []string{EventLoadChanged}})
	var de *Error
	if !errors.As(err, &de) || de.Code != CodeInvalid || len(de.Fields["url"]) != 1 || de.Fields["url"][0] != msgNotPublic {
		t.Fatalf("create: %v", err)
	}
	_, err = svc.Update(ctx, [16]byte{3}, WebhookInput{URL: &u})
	if !errors.As(err, &de) || de.Code != CodeInvalid || de.Fields["url"][0] != msgNotPublic {
		t.Fatalf("update: %v", err)
	}
}
