// Package scripts holds the tests of the shell scripts and of the Makefile's
// `make run`: how they start and, above all, how they stop.
package scripts

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
)

// TestSignalsStopTheClusterAndTheServer: a supervisor's SIGTERM to `make
// run`, a terminal's Ctrl-C (SIGINT to the process group) and SIGTERM to
// scripts/with-pg.sh each stop the server and the private PostgreSQL that
// with-pg.sh started, with the server's stop line and nothing alarming.
// `haulgraph serve` and with-pg.sh exit 0; GNU make ends by the signal it
// received (it kills its recipe, then re-raises the signal on itself), so
// make's own status is 143 or 130 whatever the recipe did.
func TestSignalsStopTheClusterAndTheServer(t *testing.T) {
	t.Parallel()
	checkout := apptest.Checkout(t)
	reachable(t, checkout) // the postgres user (when run as root) keeps its cluster in the copy's .data
	pidFile := filepath.Join(checkout, ".data", "pg", "postmaster.pid")
	t.Cleanup(func() { stopCluster(pidFile) }) // only after a failure is it still running

	// The build first, bounded only by the test's timeout: its length is the
	// build cache's warmth, not the scripts' behaviour. make run's own build
	// is then a cache hit.
	buildEnv := apptest.CleanEnv("GOFLAGS=-trimpath") // the copy is new each run: keep the build cache
	makeBuild(t, checkout, buildEnv)

	for _, c := range []struct {
		name    string
		command []string
		stop    func(pid int) error
		status  func(*os.ProcessState) bool
		want    string
	}{
		{
			name:    "SIGTERM to make run",
			command: []string{"make", "run"},
			stop:    func(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) },
			status:  signaled(syscall.SIGTERM),
			want:    "make ends by SIGTERM (143)",
		},
		{
			name:    "SIGINT to make run's process group",
			command: []string{"make", "run"},
			stop:    func(pid int) error { return syscall.Kill(-pid, syscall.SIGINT) },
			status:  signaled(syscall.SIGINT),
			want:    "make ends by SIGINT (130)",
		},
		{
			name:    "SIGTERM to with-pg.sh",
			command: []string{"./scripts/with-pg.sh", "./bin/haulgraph", "serve"}, // bin/ built by make run above
			stop:    func(pid int) error { return syscall.Kill(pid, syscall.SIGTERM) },
			status:  func(s *os.ProcessState) bool { return s.ExitCode() == 0 },
			want:    "exit 0",
		},
	} {
		addr := apptest.FreeAddr(t)
		out := apptest.NewOutput()
		cmd := exec.Command(c.command[0], c.command[1:]...)
		cmd.Dir, cmd.Stdout, cmd.Stderr = checkout, out, out
		cmd.Env = apptest.CleanEnv("HAULGRAPH_ADDR="+addr, "HAULGRAPH_ADMIN_ADDR="+apptest.FreeAddr(t),
			"HAULGRAPH_SHUTDOWN_DRAIN=0", // no balancer to drain from, as under make run
			"GOFLAGS=-trimpath")          // the copy is new each run: keep the build cache
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		if !out.WaitFor("HaulGraph serving on", exited, 2*time.Minute) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			t.Fatalf("%s: did not serve:\n%s", c.name, out.String())
		}
		if _, err := os.Stat(pidFile); err != nil {
			t.Fatalf("%s: the private cluster is not running: %v", c.name, err)
		}
		if err := c.stop(cmd.Process.Pid); err != nil {
			t.Fatal(err)
		}
		select {
		case <-exited:
		case <-time.After(60 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
			t.Fatalf("%s: still running 60 s after the signal:\n%s", c.name, out.String())
		}
		text := out.String()
		if !c.status(cmd.ProcessState) {
			t.Errorf("%s: %v, want %s:\n%s", c.name, cmd.ProcessState, c.want, text)
		}
		if !strings.Contains(text, "HaulGraph stopped") {
			t.Errorf("%s: no stop line from the server:\n%s", c.name, text)
		}
		if a := alarming(text); a != "" {
			t.Errorf("%s: alarming output %q:\n%s", c.name, a, text)
		}
		if _, err := os.Stat(pidFile); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: the private cluster still runs (%v)", c.name, err)
		}
	}
}

// alarming finds what an operator would read as a failure: make's "***"
// lines, error-level log records, panics, "terminated" or "killed" messages.
func alarming(out string) string {
	return regexp.MustCompile(`(?im)^.*(\*\*\*|"level":"ERROR"|panic|terminated|killed|error).*$`).FindString(out)
}

// stopCluster asks a cluster left running to stop (fast shutdown) and waits
// for it, bounded.
func stopCluster(pidFile string) {
	b, err := os.ReadFile(pidFile)
	if err != nil {
		return
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(b), "\n", 2)[0]))
	if err != nil || syscall.Kill(pid, syscall.SIGINT) != nil {
		return
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		if syscall.Kill(pid, 0) != nil {
			return
		}
		time.Sleep(50 * time.Millisecond) // polling another process's exit
	}
}

func signaled(sig syscall.Signal) func(*os.ProcessState) bool {
	return func(s *os.ProcessState) bool {
		ws, ok := s.Sys().(syscall.WaitStatus)
		return ok && ws.Signaled() && ws.Signal() == sig
	}
}

// reachable opens the directories above dir to other users, so that the
// postgres user with-pg.sh runs the cluster as (under root) can reach it.
func reachable(t *testing.T, dir string) {
	t.Helper()
	for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
