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

// listenEnv makes the test binary a server: it says it is starting, listens
// on the address the variable holds and serves until it is killed (ignoring
// SIGTERM when ignoreEnv is set).
const (
	listenEnv = "PROC_TEST_LISTEN"
	ignoreEnv = "PROC_TEST_IGNORE_TERM"
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(listenEnv); addr != "" {
		if os.Getenv(ignoreEnv) != "" {
			signal.Ignore(syscall.SIGTERM)
		}
		// Written before it listens: once it listens, Start returns and the
		// test may stop it at once.
		os.Stdout.WriteString("starting\n")
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			os.Exit(2)
		}
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

// startServer starts server on a free address with grace. The child exits
// 2 when it cannot listen: on a busy machine another socket (an outgoing
// connection's) can take the port between FreeAddr and its bind, and it
// tries another.
func startServer(t *testing.T, ignoreTerm bool, grace time.Duration) (*Running, *Output, string) {
	t.Helper()
	for attempt := 1; ; attempt++ {
		addr, err := FreeAddr()
		if err != nil {
			t.Fatal(err)
		}
		out := &Output{}
		r, err := Start(server(addr, ignoreTerm), out, 30*time.Second, grace, addr)
		if err == nil {
			return r, out, addr
		}
		if attempt == 3 || !strings.Contains(err.Error(), "exit status 2") {
			t.Fatal(err)
		}
	}
}

func TestStartReturnsOnceListeningAndStopEndsIt(t *testing.T) {
	t.Parallel()
	r, out, addr := startServer(t, false, 30*time.Second)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatalf("Start returned before %s listened: %v", addr, err)
	}
	c.Close()
	r.Stop()
	if r.err == nil || !strings.Contains(r.err.Error(), "terminated") {
		t.Errorf("exit after Stop: %v, want the SIGTERM", r.err)
	}
	if !strings.Contains(out.String(), "starting") {
		t.Errorf("output %q lacks what the process printed", out.String())
	}
}

func TestStopKillsWhatIgnoresSIGTERMAfterTheGrace(t *testing.T) {
	t.Parallel()
	r, _, _ := startServer(t, true, 100*time.Millisecond)
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
