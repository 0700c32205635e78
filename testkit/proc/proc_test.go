package proc

import (
	"net"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"testing"
	"time"
)

// listenEnv makes the test binary a server: it listens on the address the
// variable holds, says so, and serves until it is killed (ignoring SIGTERM
// when ignoreEnv is set).
const (
	listenEnv = "PROC_TEST_LISTEN"
	ignoreEnv = "PROC_TEST_IGNORE_TERM"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(listenEnv); addr != "" {
		if os.Getenv(ignoreEnv) != "" {
			signal.Ignore(syscall.SIGTERM)
		}
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString("listening\n")
		for {
			c, err := ln.Accept()
			if err != nil {
				os.Exit(3)
			}
			c.Close()
		}
	}
	os.Exit(m.Run())
}

// server is this test binary as a server on addr.
func server(addr string, ignoreTerm bool) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), listenEnv+"="+addr)
	if ignoreTerm {
		cmd.Env = append(cmd.Env, ignoreEnv+"=1")
	}
	return cmd
}

func TestStartReturnsOnceListeningAndStopEndsIt(t *testing.T) {
	t.Parallel()
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	var out Output
	r, err := Start(server(addr, false), &out, 30*time.Second, 30*time.Second, addr)
	if err != nil {
		t.Fatal(err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("Start returned before %s listened: %v", addr, err)
	}
	c.Close()
	r.Stop()
	if r.err == nil || !strings.Contains(r.err.Error(), "terminated") {
		t.Errorf("exit after Stop: %v, want the SIGTERM", r.err)
	}
	if !strings.Contains(out.String(), "listening") {
		t.Errorf("output %q lacks what the process printed", out.String())
	}
}

func TestStopKillsWhatIgnoresSIGTERMAfterTheGrace(t *testing.T) {
	t.Parallel()
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	r, err := Start(server(addr, true), &Output{}, 30*time.Second, 100*time.Millisecond, addr)
	if err != nil {
		t.Fatal(err)
	}
	r.Stop()
	if r.err == nil || !strings.Contains(r.err.Error(), "killed") {
		t.Errorf("exit after Stop: %v, want the SIGKILL", r.err)
	}
}

func TestStartRefusesAProcessThatExitsFirst(t *testing.T) {
	t.Parallel()
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	_, err = Start(exec.Command("sh", "-c", "echo no config; exit 3"), &Output{}, 30*time.Second, time.Second, addr)
	if err == nil || !strings.Contains(err.Error(), "sh exited: exit status 3") || !strings.Contains(err.Error(), "no config") {
		t.Fatalf("err = %v, want the exit and its output", err)
	}
}

func TestStartStopsAProcessThatDoesNotListenInTime(t *testing.T) {
	t.Parallel()
	addr, err := FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sleep", "60")
	_, err = Start(cmd, &Output{}, 200*time.Millisecond, 10*time.Second, addr)
	if err == nil || !strings.Contains(err.Error(), "sleep does not listen on "+addr) {
		t.Fatalf("err = %v, want that it does not listen", err)
	}
	if cmd.ProcessState == nil {
		t.Fatal("the process still runs after Start gave up on it")
	}
}

func TestOutputKeepsTheFirstMiB(t *testing.T) {
	t.Parallel()
	var out Output
	line := []byte(strings.Repeat("x", 1023) + "\n")
	for range 2048 {
		if n, err := out.Write(line); n != len(line) || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
	}
	if n := len(out.String()); n < 1<<20 || n > 1<<20+len(line) {
		t.Errorf("kept %d bytes, want the first MiB", n)
	}
}
