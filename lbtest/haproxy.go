// Package lbtest starts real load balancers for tests: HAProxy in the
// foreground on loopback, with a configuration the test writes.
package lbtest

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binds finds the frontends' addresses: "bind 127.0.0.1:port" lines.
var binds = regexp.MustCompile(`(?m)^\s*bind\s+(\S+)`)

// HAProxy runs Debian's haproxy (scripts/with-tools.sh installs it for
// make test) on config, in the foreground, until the test ends. It returns
// once every bind address of config accepts connections (a bounded poll)
// and answers the first as http://address. The config's addresses are the
// test's own free ports on 127.0.0.1.
func HAProxy(t testing.TB, config string) string {
	t.Helper()
	bin := haproxyBinary(t)
	addrs := binds.FindAllStringSubmatch(config, -1)
	if len(addrs) == 0 {
		t.Fatal("lbtest: the HAProxy config binds no address")
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "haproxy.cfg")
	if err := os.WriteFile(cfg, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "-c", "-q", "-f", cfg).CombinedOutput(); err != nil {
		t.Fatalf("lbtest: the HAProxy config is refused: %v\n%s\n%s", err, out, config)
	}
	out := &lockedBuffer{}
	// -db: foreground, no daemon; its log and warnings go to out.
	cmd := exec.Command(bin, "-db", "-f", cfg)
	cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("lbtest: start HAProxy: %v", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM) // immediate stop
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for _, m := range addrs {
		for {
			c, err := net.DialTimeout("tcp", m[1], time.Second)
			if err == nil {
				c.Close()
				break
			}
			select {
			case <-exited:
				t.Fatalf("lbtest: HAProxy exited: %s", out)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("lbtest: HAProxy does not listen on %s after 30 s: %v\n%s", m[1], err, out)
			}
			time.Sleep(10 * time.Millisecond) // polling the port, bounded by the deadline
		}
	}
	return "http://" + addrs[0][1]
}

// haproxyBinary is haproxy on PATH, else Debian's /usr/sbin/haproxy (not on
// every user's PATH).
func haproxyBinary(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("haproxy"); err == nil {
		return p
	}
	if _, err := os.Stat("/usr/sbin/haproxy"); err == nil {
		return "/usr/sbin/haproxy"
	}
	t.Fatal("lbtest: no haproxy: run through `make test` (scripts/with-tools.sh installs Debian's haproxy)")
	return ""
}

type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
