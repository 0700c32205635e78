package scripts

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
)

// TestMakeRunStepsAndMakeReset: `make run` announces its steps (build,
// database, migrations, seed, serving) on stderr; `make reset` refuses while
// the cluster runs and with DATABASE_URL set, removing nothing; once make run
// has stopped it removes the cluster and the demo's generated files (and
// nothing else in .data), and the next make run seeds a new demo client.
func TestMakeRunStepsAndMakeReset(t *testing.T) {
	t.Parallel()
	checkout := apptest.Checkout(t)
	reachable(t, checkout)
	data := filepath.Join(checkout, ".data")
	pidFile := filepath.Join(data, "pg", "postmaster.pid")
	t.Cleanup(func() { stopCluster(pidFile) })
	env := apptest.CleanEnv("GOFLAGS=-trimpath") // the copy is new each run: keep the build cache
	makeBuild(t, checkout, env)

	reset := func(extra ...string) (string, int) {
		cmd := exec.Command("make", "--no-print-directory", "reset")
		cmd.Dir, cmd.Env = checkout, append(append([]string{}, env...), extra...)
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	// makeRun starts make run, waits until it serves and returns its stderr
	// and a stop function.
	makeRun := func() (stdout, stderr *apptest.Output, stop func()) {
		stdout, stderr = apptest.NewOutput(), apptest.NewOutput()
		cmd := exec.Command("make", "--no-print-directory", "run")
		cmd.Dir, cmd.Stdout, cmd.Stderr = checkout, stdout, stderr
		cmd.Env = append(append([]string{}, env...), "HAULGRAPH_ADDR="+apptest.FreeAddr(t), "HAULGRAPH_ADMIN_ADDR="+apptest.FreeAddr(t))
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-exited })
		// The banner on stdout and the step on stderr are two pipes: either
		// may be read first.
		if !stdout.WaitFor("HaulGraph serving on", exited, 3*time.Minute) || !stderr.WaitFor("serve: serving on http://", exited, time.Minute) {
			t.Fatalf("make run did not serve:\n%s\n%s", stdout.String(), stderr.String())
		}
		return stdout, stderr, func() {
			_ = syscall.Kill(cmd.Process.Pid, syscall.SIGTERM)
			select {
			case <-exited:
			case <-time.After(60 * time.Second):
				t.Fatalf("make run still running 60 s after SIGTERM")
			}
		}
	}
	clientID := func() string {
		b, err := os.ReadFile(filepath.Join(data, "demo-client.json"))
		if err != nil {
			t.Fatal(err)
		}
		var c struct {
			ClientID string `json:"client_id"`
		}
		if err := json.Unmarshal(b, &c); err != nil || c.ClientID == "" {
			t.Fatalf("demo-client.json: %v %q", err, b)
		}
		return c.ClientID
	}

	stdout, stderr, stop := makeRun()
	steps := []string{"run: building bin/haulgraph", "run: database: the private PostgreSQL", "serve: database ", "applying migrations",
		"serve: seeding the demo tenant", "serve: serving on http://"}
	for _, s := range steps {
		if !strings.Contains(stderr.String(), s) {
			t.Errorf("make run's stderr lacks the step %q:\n%s", s, stderr.String())
		}
		if strings.Contains(stdout.String(), s) {
			t.Errorf("the step %q is on stdout, want stderr only", s)
		}
	}
	first := clientID()

	if out, code := reset(); code == 0 || !strings.Contains(out, "is running") {
		t.Errorf("make reset while make run runs: exit %d, %q; want a refusal", code, out)
	}
	if _, err := os.Stat(pidFile); err != nil {
		t.Fatalf("make reset touched the running cluster: %v", err)
	}
	stop()

	mine := filepath.Join(data, "mine.json")
	if err := os.WriteFile(mine, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, code := reset("DATABASE_URL=postgres://elsewhere/db"); code == 0 || !strings.Contains(out, "DATABASE_URL") {
		t.Errorf("make reset with DATABASE_URL: exit %d, %q; want a refusal naming it", code, out)
	}
	if _, err := os.Stat(filepath.Join(data, "pg")); err != nil {
		t.Fatalf("a refused make reset removed the cluster: %v", err)
	}
	if out, code := reset(); code != 0 {
		t.Fatalf("make reset: exit %d\n%s", code, out)
	}
	for _, gone := range []string{"pg", "encryption.key", "demo-client.json"} {
		if _, err := os.Stat(filepath.Join(data, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("after make reset .data/%s remains (%v)", gone, err)
		}
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("make reset removed a file of the user's: %v", err)
	}

	stdout, _, stop = makeRun()
	stop()
	if !strings.Contains(stdout.String(), `seeded tenant "demo"`) {
		t.Errorf("make run after make reset did not seed the demo afresh:\n%s", stdout.String())
	}
	if second := clientID(); second == first {
		t.Errorf("make run after make reset kept the demo client %s", first)
	}
}
