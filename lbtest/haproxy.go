package lbtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// HAProxy starts HAProxy with sections (frontends, backends; a bind on
// Listen) after a minimal global and defaults section, and returns the
// address it listens on.
func HAProxy(t testing.TB, sections string) string {
	t.Helper()
	if !strings.Contains(sections, Listen) {
		t.Fatalf("lbtest: the config has no %s", Listen)
	}
	addr := freeAddr(t)
	HAProxyConfig(t, strings.ReplaceAll(`global
	maxconn 1024
defaults
	timeout connect 5s
	timeout client 30s
	timeout server 30s
`+sections, Listen, addr))
	return addr
}

// binds finds a config's listening addresses: its "bind host:port" lines.
var binds = regexp.MustCompile(`(?m)^\s*bind\s+(\S+)`)

// HAProxyConfig runs HAProxy on a whole config of the test's (its global
// and defaults too) in the foreground until the test ends. It returns once
// every bind address of config accepts connections; a config HAProxy
// refuses fails the test with HAProxy's reasons.
func HAProxyConfig(t testing.TB, config string) {
	t.Helper()
	var addrs []string
	for _, m := range binds.FindAllStringSubmatch(config, -1) {
		addrs = append(addrs, m[1])
	}
	if len(addrs) == 0 {
		t.Fatal("lbtest: the HAProxy config binds no address")
	}
	bin := binary(t, "haproxy", "haproxy")
	cfg := filepath.Join(t.TempDir(), "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-c", "-q", "-f", cfg).CombinedOutput(); err != nil {
		t.Fatalf("lbtest: HAProxy refuses the config: %v\n%s\n%s", err, out, config)
	}
	start(t, addrs, bin, "-db", "-f", cfg) // -db: in the foreground
}
