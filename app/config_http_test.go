package app_test

import (
	"net/netip"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/httpedge"
)

// The HTTP connection bounds come from HAULGRAPH_HTTP_*; nonsense is
// refused at start, and 0 lifts the per-address cap; so do the trusted
// proxies and the PROXY protocol switch.
func TestHTTPLimitsFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	t.Setenv("HAULGRAPH_HTTP_READ_HEADER_TIMEOUT", "3s")
	t.Setenv("HAULGRAPH_HTTP_IDLE_TIMEOUT", "20s")
	t.Setenv("HAULGRAPH_HTTP_BODY_TIMEOUT", "4s")
	t.Setenv("HAULGRAPH_HTTP_BODY_MIN_RATE", "512")
	t.Setenv("HAULGRAPH_HTTP_WRITE_TIMEOUT", "7s")
	t.Setenv("HAULGRAPH_HTTP_MAX_CONNS_PER_ADDR", "0")
	t.Setenv("HAULGRAPH_TRUSTED_PROXIES", "10.0.0.0/8, 2001:db8::/32,192.0.2.7")
	t.Setenv("HAULGRAPH_PROXY_PROTOCOL", "on")
	t.Setenv("HAULGRAPH_PUBLIC_URL", "https://api.example.com")
	c, err := app.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	want := app.HTTPLimits{ReadHeaderTimeout: 3 * time.Second, IdleTimeout: 20 * time.Second, BodyTimeout: 4 * time.Second,
		BodyMinRate: 512, WriteTimeout: 7 * time.Second, MaxConnsPerAddr: -1, ProxyProtocol: true,
		TrustedProxies: httpedge.Proxies{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("192.0.2.7/32")}}
	if !reflect.DeepEqual(c.HTTP, want) {
		t.Fatalf("limits %+v, want %+v", c.HTTP, want)
	}
	for env, bad := range map[string]string{"HAULGRAPH_HTTP_IDLE_TIMEOUT": "0s", "HAULGRAPH_HTTP_BODY_MIN_RATE": "fast",
		"HAULGRAPH_HTTP_MAX_CONNS_PER_ADDR": "-2", "HAULGRAPH_HTTP_WRITE_TIMEOUT": "soon",
		"HAULGRAPH_TRUSTED_PROXIES": "10.0.0.0/8,nginx", "HAULGRAPH_PROXY_PROTOCOL": "yes"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, bad)
			if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), env) {
				t.Fatalf("%s=%s: %v", env, bad, err)
			}
		})
	}
	t.Run("protocol without proxies", func(t *testing.T) {
		t.Setenv("HAULGRAPH_TRUSTED_PROXIES", "")
		if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), "HAULGRAPH_TRUSTED_PROXIES") {
			t.Fatalf("HAULGRAPH_PROXY_PROTOCOL=on without proxies: %v", err)
		}
	})
}
