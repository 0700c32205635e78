package main

import (
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
)

// TestServeBehindProxiesNeedsPublicURL: `serve` with trusted proxies (a
// balancer in front) but no HAULGRAPH_PUBLIC_URL refuses to start, exit 1
// with one line naming both variables, before it dials the database: each
// instance would otherwise issue tokens as http://<its own address>, which
// the others refuse. With the public URL set, the same start goes on to
// the database (here one that closes every connection).
func TestServeBehindProxiesNeedsPublicURL(t *testing.T) {
	t.Parallel()
	serve := func(publicURL string) (string, int, int32) {
		dbURL, dialled := deadDatabase(t)
		out, code := runMain(t, t.TempDir(), "serve", "DATABASE_URL="+dbURL, "HAULGRAPH_ENCRYPTION_KEY="+testKey,
			"HAULGRAPH_ADDR="+apptest.FreeAddr(t), "HAULGRAPH_ADMIN_ADDR=", "HAULGRAPH_TRUSTED_PROXIES=10.0.0.0/8",
			"HAULGRAPH_PUBLIC_URL="+publicURL)
		return out, code, dialled.Load()
	}
	want := "haulgraph: HAULGRAPH_TRUSTED_PROXIES is set but HAULGRAPH_PUBLIC_URL is not: "
	if out, code, dialled := serve(""); code != 1 || !strings.HasPrefix(out, want) || strings.Count(out, "\n") != 1 || dialled != 0 {
		t.Errorf("serve behind proxies without a public URL: exit %d, %d database connections, output %q; want exit 1, none, and one line starting %q",
			code, dialled, out, want)
	}
	if out, code, dialled := serve("https://api.example.com"); code != 1 || strings.Contains(out, "HAULGRAPH_PUBLIC_URL") || dialled == 0 {
		t.Errorf("serve behind proxies with a public URL: exit %d, %d database connections, output %q; want it to try the database", code, dialled, out)
	}
}
