// Package lbtest starts real load balancers (HAProxy, nginx) in front of a
// test's server: on loopback, on a free port, with the test's config
// written to its temp dir, as the current user, stopped when the test ends.
package lbtest

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Listen is the placeholder of the proxy's listening address (host:port)
// in a config.
const Listen = "{{listen}}"

var installs sync.Map // binary -> *sync.Once

// binary finds name (Debian package pkg), installing it when missing and
// this is root with apt-get, as scripts/with-tools.sh does for make test.
func binary(t testing.TB, name, pkg string) string {
	t.Helper()
	find := func() string {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		if p := "/usr/sbin/" + name; isExec(p) {
			return p
		}
		return ""
	}
	if p := find(); p != "" {
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
	p := find()
	if p == "" {
		t.Fatalf("lbtest: %s not found: run the tests through scripts/with-tools.sh (make test), or apt-get install %s", name, pkg)
	}
	return p
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// freeAddr is a loopback address with a port nothing listens on now.
func freeAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// start runs the proxy's command until the test ends and returns once
// every one of addrs accepts connections (polled, within 20 s).
func start(t testing.TB, addrs []string, name string, args ...string) {
	t.Helper()
	var out lockedBuffer
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its workers stop with it
	if err := cmd.Start(); err != nil {
		t.Fatalf("lbtest: %s: %v", name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	deadline := time.Now().Add(20 * time.Second)
	for _, addr := range addrs {
		for {
			select {
			case err := <-exited:
				exited <- err // for the cleanup
				t.Fatalf("lbtest: %s exited: %v\n%s", name, err, out.String())
			default:
			}
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				_ = c.Close()
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("lbtest: %s does not listen on %s: %v\n%s", name, addr, err, out.String())
			}
			time.Sleep(20 * time.Millisecond) // poll interval of a bounded wait for a process we do not control
		}
	}
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

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
