// Package proc runs the real servers tests start beside them (load
// balancers, brokers): found on PATH or in /usr/sbin, on free loopback
// ports, in a process group of their own, ready once they listen, stopped
// with SIGTERM and then SIGKILL. It imports nothing of the project.
package proc

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// Find is name's path on PATH or in /usr/sbin, or "" when neither has it.
func Find(name string) string {
	if p, err := exec.LookPath(name); err == nil {
		return p
	}
	if p := "/usr/sbin/" + name; Executable(p) {
		return p
	}
	return ""
}

// Executable reports whether p is a regular file someone may execute.
func Executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// FreeAddr is a loopback address with a port nothing listens on now.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

// Running is a started process and its group.
type Running struct {
	cmd   *exec.Cmd
	grace time.Duration
	done  chan struct{} // closed when it has exited, with err
	err   error
}

// Start runs cmd in a process group of its own (its children stop with
// it), its output into out, and returns once each of addrs accepts
// connections, polled within listen. A process that exits first or does
// not listen in time is stopped, and the error says so with its output.
// Stop gives it grace between SIGTERM and SIGKILL.
func Start(cmd *exec.Cmd, out *Output, listen, grace time.Duration, addrs ...string) (*Running, error) {
	name := filepath.Base(cmd.Path)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	r := &Running{cmd: cmd, grace: grace, done: make(chan struct{})}
	go func() { r.err = cmd.Wait(); close(r.done) }()
	deadline := time.Now().Add(listen)
	for _, addr := range addrs {
		for {
			select {
			case <-r.done:
				_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM) // what it left of its group
				return nil, fmt.Errorf("%s exited: %v\n%s", name, r.err, out.String())
			default:
			}
			c, err := net.DialTimeout("tcp", addr, time.Second)
			if err == nil {
				_ = c.Close()
				break
			}
			if time.Now().After(deadline) {
				r.Stop()
				return nil, fmt.Errorf("%s does not listen on %s within %s: %v\n%s", name, addr, listen, err, out.String())
			}
			time.Sleep(20 * time.Millisecond) // poll interval of a bounded wait for a process we do not control
		}
	}
	return r, nil
}

// Stop ends the process group (SIGTERM, then SIGKILL after the grace) and
// waits for the process.
func (r *Running) Stop() {
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(r.grace):
		_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
		<-r.done
	}
}

// Output keeps what a process prints, to explain a failure: safe for
// concurrent writes, its first MiB only.
type Output struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.b.Len() > 1<<20 {
		return len(p), nil // enough to explain a failure
	}
	return o.b.Write(p)
}

func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.b.String()
}
