// Package lbtest starts real load balancers (HAProxy, nginx) in front of a
// test's server: on loopback, on a free port, with the test's config
// written to its temp dir, as the current user, stopped when the test ends.
package lbtest

import (
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/testkit/proc"
)

// Listen is the placeholder of the proxy's listening address (host:port)
// in a config.
const Listen = "{{listen}}"

var installs sync.Map // binary -> *sync.Once

// binary finds name (Debian package pkg), installing it when missing and
// this is root with apt-get, as scripts/with-tools.sh does for make test.
func binary(t testing.TB, name, pkg string) string {
	t.Helper()
	if p := proc.Find(name); p != "" {
		return p
	}
	once, _ := installs.LoadOrStore(name, &sync.Once{})
	once.(*sync.Once).Do(func() {
		if os.Geteuid() != 0 {
			return
		}
		if _, err := exec.LookPath("apt-get"); err != nil {
			return
		}
		cmd := exec.Command("apt-get", "install", "-y", "-qq", pkg)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Logf("lbtest: apt-get install %s: %v\n%s", pkg, err, out)
		}
	})
	p := proc.Find(name)
	if p == "" {
		t.Fatalf("lbtest: %s not found: run the tests through scripts/with-tools.sh (make test), or apt-get install %s", name, pkg)
	}
	return p
}

// freeAddr is a loopback address with a port nothing listens on now.
func freeAddr(t testing.TB) string {
	t.Helper()
	addr, err := proc.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// start runs the proxy's command (its workers in its process group) until
// the test ends and returns once every one of addrs accepts connections
// (polled, within 20 s).
func start(t testing.TB, addrs []string, name string, args ...string) {
	t.Helper()
	p, err := proc.Start(exec.Command(name, args...), &proc.Output{}, 20*time.Second, 10*time.Second, addrs...)
	if err != nil {
		t.Fatalf("lbtest: %v", err)
	}
	t.Cleanup(p.Stop)
}

// writeConfig writes text, with Listen replaced by addr, to dir/name.
func writeConfig(t testing.TB, dir, name, text, addr string) string {
	t.Helper()
	if !strings.Contains(text, Listen) {
		t.Fatalf("lbtest: the config has no %s", Listen)
	}
	p := dir + "/" + name
	if err := os.WriteFile(p, []byte(strings.ReplaceAll(text, Listen, addr)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
