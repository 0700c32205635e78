// Package brokertest runs real message brokers for tests and benchmarks:
// Debian's nats-server (JetStream on) and rabbitmq-server, in the
// foreground, on loopback, on free ports, with a data directory (and for
// RabbitMQ a node name and Erlang port mapper) of their own, stopped again
// by their owner. scripts/with-tools.sh installs them when missing.
package brokertest

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"

	"github.com/haulgraph/haulgraph/testkit/proc"
)

// Process is one broker process that can be stopped and started again on
// the same ports and data (a broker outage).
type Process struct {
	Name string
	// Addr is host:port of the client listener.
	Addr string

	mu      sync.Mutex
	run     *proc.Running
	out     proc.Output
	command func() *exec.Cmd
	ctl     func(args ...string) *exec.Cmd
	started time.Duration
	cleanup func()
}

// Start runs the process (its children in its process group) and returns
// once its client port accepts connections (polled, within timeout).
func (p *Process) Start(timeout time.Duration) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run != nil {
		return nil
	}
	begin := time.Now()
	run, err := proc.Start(p.command(), &p.out, timeout, 15*time.Second, p.Addr)
	if err != nil {
		return fmt.Errorf("brokertest: %w", err)
	}
	p.run, p.started = run, time.Since(begin)
	return nil
}

// StartedIn is how long the last Start took to listen.
func (p *Process) StartedIn() time.Duration { return p.started }

// Stop ends the process (SIGTERM, then SIGKILL after 15 s) and waits for it.
func (p *Process) Stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run != nil {
		p.run.Stop()
		p.run = nil
	}
}

// Close stops the process for good and removes what it left (its data
// directory, RabbitMQ's port mapper).
func (p *Process) Close() {
	p.Stop()
	if p.cleanup != nil {
		p.cleanup()
	}
}

// Ctl runs rabbitmqctl against a RabbitMQ process (its node and cookie)
// and returns its output.
func (p *Process) Ctl(args ...string) ([]byte, error) {
	if p.ctl == nil {
		return nil, errors.New("brokertest: " + p.Name + " has no control command")
	}
	return p.ctl(args...).CombinedOutput()
}

// Output is what the process printed.
func (p *Process) Output() string { return p.out.String() }

// NATS returns a nats-server with JetStream on (not started) storing in a
// new directory under dir, on a free loopback port. args are added to the
// command line (e.g. --user, --pass).
func NATS(dir string, args ...string) (*Process, error) {
	bin, err := binary("nats-server")
	if err != nil {
		return nil, err
	}
	addr, err := proc.FreeAddr()
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	store, err := os.MkdirTemp(dir, "nats-")
	if err != nil {
		return nil, err
	}
	return &Process{Name: "nats-server", Addr: addr, command: func() *exec.Cmd {
		return exec.Command(bin, append([]string{"-a", host, "-p", port, "-js", "-sd", store, "-n", "haulgraph-test"}, args...)...)
	}, cleanup: func() { _ = os.RemoveAll(store) }}, nil
}

// RabbitMQ returns a rabbitmq-server (not started) with a node name, ports
// (AMQP, distribution, its own Erlang port mapper) and data under a new
// directory in dir; the guest user may connect over loopback. Close stops
// its port mapper too.
func RabbitMQ(dir string) (*Process, error) {
	bin := "/usr/lib/rabbitmq/bin/rabbitmq-server" // the foreground server, not Debian's su wrapper
	if !proc.Executable(bin) {
		if _, err := binary("rabbitmq-server"); err != nil {
			return nil, err
		}
	}
	base, err := os.MkdirTemp(dir, "rabbitmq-")
	if err != nil {
		return nil, err
	}
	var ports [3]string
	for i := range ports {
		a, err := proc.FreeAddr()
		if err != nil {
			return nil, err
		}
		_, ports[i], _ = net.SplitHostPort(a)
	}
	if err := os.WriteFile(filepath.Join(base, "rabbitmq.conf"), []byte("loopback_users = none\nlisteners.tcp.default = 127.0.0.1:"+ports[0]+"\n"), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(base, "enabled_plugins"), []byte("[].\n"), 0o600); err != nil {
		return nil, err
	}
	node := "haulgraph-test-" + ports[0] + "@localhost"
	env := append(os.Environ(), "HOME="+base, "RABBITMQ_NODENAME="+node, "RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT="+ports[0], "RABBITMQ_DIST_PORT="+ports[1], "ERL_EPMD_PORT="+ports[2],
		"RABBITMQ_MNESIA_BASE="+filepath.Join(base, "mnesia"), "RABBITMQ_LOG_BASE="+filepath.Join(base, "log"), "RABBITMQ_LOGS=-",
		"RABBITMQ_CONFIG_FILE="+filepath.Join(base, "rabbitmq"), "RABBITMQ_ENABLED_PLUGINS_FILE="+filepath.Join(base, "enabled_plugins"),
		"RABBITMQ_ADVANCED_CONFIG_FILE="+filepath.Join(base, "advanced.config"), "RABBITMQ_PID_FILE="+filepath.Join(base, "pid"))
	return &Process{Name: "rabbitmq-server", Addr: "127.0.0.1:" + ports[0], command: func() *exec.Cmd {
		cmd := exec.Command(bin)
		cmd.Env = env
		return cmd
	}, ctl: func(args ...string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(filepath.Dir(bin), "rabbitmqctl"), append([]string{"-n", node}, args...)...)
		cmd.Env = env
		return cmd
	}, cleanup: func() {
		// The server started its own port mapper (ERL_EPMD_PORT): stop it.
		if epmd, err := exec.LookPath("epmd"); err == nil {
			_ = exec.Command(epmd, "-port", ports[2], "-kill").Run()
		} else if matches, _ := filepath.Glob("/usr/lib/erlang/erts-*/bin/epmd"); len(matches) > 0 {
			_ = exec.Command(matches[0], "-port", ports[2], "-kill").Run()
		}
		_ = os.RemoveAll(base)
	}}, nil
}

// binary finds name on PATH or in /usr/sbin.
func binary(name string) (string, error) {
	if p := proc.Find(name); p != "" {
		return p, nil
	}
	return "", errors.New("brokertest: " + name + " not found: run through scripts/with-tools.sh (make test), or apt-get install " + name)
}
