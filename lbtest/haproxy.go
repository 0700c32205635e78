package lbtest

import "testing"

// HAProxy starts HAProxy with sections (frontends, backends; a bind on
// Listen) after a minimal global and defaults section, and returns the
// address it listens on.
func HAProxy(t testing.TB, sections string) string {
	t.Helper()
	bin := binary(t, "haproxy", "haproxy")
	addr := freeAddr(t)
	cfg := writeConfig(t, t.TempDir(), "haproxy.cfg", `global
	maxconn 1024
defaults
	timeout connect 5s
	timeout client 30s
	timeout server 30s
`+sections, addr)
	start(t, addr, bin, "-db", "-f", cfg) // -db: in the foreground
	return addr
}
