package readme

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// TestREADME runs README.md and the guides under docs/ (Walk gives the
// order): every ```sh block in order, in one bash shell, against a real
// `make run` in a fresh-clone-like copy of the working tree, on a database
// cloned from the test template and free ports; each shown answer is
// compared, and a block with none must print no error. The conventions are
// docs/testing.md's "The README and the guides are a test".
func TestREADME(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"bash", "make", "curl", "jq", "python3", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is missing (make test installs it through scripts/with-tools.sh)", tool)
		}
	}
	checkout := apptest.Checkout(t)
	files, err := Walk(checkout)
	if err != nil {
		t.Fatal(err)
	}
	type fileStep struct {
		file string
		Step
	}
	var steps []fileStep
	var all []Step
	for _, f := range files {
		md, err := os.ReadFile(filepath.Join(checkout, f))
		if err != nil {
			t.Fatal(err)
		}
		blocks, err := Blocks(string(md))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, s := range Steps(blocks) {
			steps = append(steps, fileStep{f, s})
			all = append(all, s)
		}
	}
	requireReceivers(t, all)

	// The README's fixed addresses, each replaced by a free one.
	ports := newPorts(t, "127.0.0.1:8080", "127.0.0.1:9090", "127.0.0.1:8081", "127.0.0.1:8082", "127.0.0.1:8083")
	env := apptest.CleanEnv(
		"DATABASE_URL="+dbtest.URL(t),
		"HAULGRAPH_ADDR="+ports.to["127.0.0.1:8080"],
		"HAULGRAPH_ADMIN_ADDR="+ports.to["127.0.0.1:9090"],
		"HAULGRAPH_DEMO_DIR="+filepath.Join(checkout, ".data"),
		// The blocks run back to back, faster than a reader types: the
		// limits are raised so that no example meets a refusal.
		"HAULGRAPH_RATE_LIMIT_CLIENT=10000", "HAULGRAPH_RATE_LIMIT_TENANT=10000",
		"HAULGRAPH_RATE_LIMIT_TOKEN=10000", "HAULGRAPH_RATE_LIMIT_TOKEN_BURST=10000",
		"HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESS=10000", "HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESS_BURST=10000",
		"HAULGRAPH_RATE_LIMIT_TOKEN_GLOBAL=10000", "HAULGRAPH_RATE_LIMIT_TOKEN_GLOBAL_BURST=10000",
		// The copy lives in a new directory each run: without -trimpath
		// the build cache would miss on every package.
		"GOFLAGS=-trimpath",
		"TMPDIR="+t.TempDir(),
	)

	// The build comes first, bounded only by the test's own timeout: how long
	// it takes depends on how warm the build cache is, not on the code under
	// test. make run's own build is then a cache hit.
	build := exec.Command("make", "--no-print-directory", "build")
	build.Dir, build.Env = checkout, env
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("make build: %v\n%s", err, tail(string(out), 3000))
	}
	server := startMakeRun(t, checkout, env)
	sh := startShell(t, checkout, env)
	failures := 0
	for i, s := range steps {
		if failures >= 5 {
			t.Fatal("stopping after 5 failed blocks")
		}
		if err := sh.run(t, i, s.Step, ports); err != nil {
			failures++
			t.Errorf("%s line %d: %v", s.file, s.Line, err)
		}
	}
	if t.Failed() {
		t.Logf("make run printed:\n%s", tail(server.String(), 3000))
	}
}

// requireReceivers keeps the webhook receivers in the guides, and so in
// this test.
func requireReceivers(t *testing.T, steps []Step) {
	t.Helper()
	saved := map[string]bool{}
	for _, s := range steps {
		if s.Kind == File {
			saved[filepath.Ext(s.Path)] = true
		}
	}
	if !saved[".go"] || !saved[".py"] {
		t.Fatalf("neither README.md nor a guide saves the Go and Python receivers (// file: …): saved %v", saved)
	}
}

// ports maps each fixed address of the README to a free one.
type ports struct{ to map[string]string }

func newPorts(t *testing.T, fixed ...string) ports {
	p := ports{to: map[string]string{}}
	taken := map[string]bool{}
	for _, f := range fixed {
		a := apptest.FreeAddr(t)
		for taken[a] {
			a = apptest.FreeAddr(t)
		}
		taken[a] = true
		p.to[f] = a
	}
	return p
}

func (p ports) replace(s string) string {
	for from, to := range p.to {
		s = strings.ReplaceAll(s, from, to)
	}
	return s
}

// startMakeRun runs `make run` in the checkout until the test ends, then
// stops it as a supervisor would (SIGTERM to make).
func startMakeRun(t *testing.T, dir string, env []string) *apptest.Output {
	t.Helper()
	out := apptest.NewOutput()
	cmd := exec.Command("make", "run")
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Errorf("make run still running 30 s after SIGTERM")
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if !strings.Contains(out.String(), "HaulGraph stopped") {
			t.Errorf("make run did not stop cleanly:\n%s", tail(out.String(), 2000))
		}
	})
	// The binary is built already: this is migrations, the demo seed and
	// the listener, on a machine that may be busy with other tests.
	if !out.WaitFor("HaulGraph serving on", exited, 2*time.Minute) {
		t.Fatalf("make run did not serve:\n%s", tail(out.String(), 3000))
	}
	return out
}

// shell is one bash process: variables and background jobs carry from one
// block to the next, as in a reader's terminal.
type shell struct {
	stdin  io.WriteCloser
	stdout chan string
	stderr chan string
	dir    string // the checkout, where the blocks run
	tmp    string
}

func startShell(t *testing.T, dir string, env []string) *shell {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc")
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // the blocks' background jobs too
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &shell{stdin: stdin, stdout: make(chan string, 1024), stderr: make(chan string, 1024), dir: dir, tmp: t.TempDir()}
	for r, ch := range map[io.Reader]chan string{stdout: s.stdout, stderr: s.stderr} {
		go func() { // ends at EOF, which the cleanup's kill brings
			sc := bufio.NewScanner(r)
			sc.Buffer(make([]byte, 1<<20), 16<<20)
			for sc.Scan() {
				ch <- sc.Text()
			}
			close(ch)
		}()
	}
	t.Cleanup(func() {
		_ = stdin.Close()
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // bash and the receivers it started
		for range s.stdout {
		}
		for range s.stderr {
		}
		_ = cmd.Wait()
	})
	// A command that fails says so on stderr, which must stay empty.
	if _, err := io.WriteString(stdin, `trap 'echo "README: exit status $? from: $BASH_COMMAND" >&2' ERR`+"\n"); err != nil {
		t.Fatal(err)
	}
	return s
}

// run runs one step and compares what it printed with the shown answer.
func (s *shell) run(t *testing.T, i int, st Step, p ports) error {
	t.Helper()
	script := p.replace(st.Script)
	switch st.Kind {
	case File:
		return os.WriteFile(filepath.Join(s.dir, st.Path), []byte(script), 0o644)
	case GraphQL:
		var vars any
		if err := json.Unmarshal([]byte(st.Variables), &vars); err != nil {
			return fmt.Errorf("variables: %v", err)
		}
		body, _ := json.Marshal(map[string]any{"query": script, "variables": vars})
		f := filepath.Join(s.tmp, fmt.Sprintf("graphql-%d.json", i))
		if err := os.WriteFile(f, body, 0o644); err != nil {
			return err
		}
		script = fmt.Sprintf(`curl -s http://%s/graphql -H "Authorization: Bearer $TOKEN" -H 'Content-Type: application/json' --data-binary @%s`+"\n",
			p.to["127.0.0.1:8080"], f)
	}
	out, errOut, err := s.exec(i, script, stepBound(st))
	if err != nil {
		return err
	}
	if errOut != "" {
		return fmt.Errorf("printed on stderr:\n%s\nstdout:\n%s", errOut, tail(out, 2000))
	}
	if st.Answer == nil {
		if f := Failure(out); f != "" {
			return fmt.Errorf("no answer is shown, but it printed an error (%s):\n%s", f, tail(out, 2000))
		}
		return nil
	}
	want := p.replace(st.Answer.Text)
	var cmp error
	if st.Answer.Lang == "json" {
		cmp = MatchJSON(want, out)
	} else {
		cmp = MatchText(want, out)
	}
	if cmp != nil {
		return fmt.Errorf("the answer shown at line %d differs: %v\noutput:\n%s", st.Answer.Line, cmp, tail(out, 3000))
	}
	return nil
}

// stepTimeout bounds one block that builds nothing.
const stepTimeout = 2 * time.Minute

// builds matches a block that compiles Go (a receiver, a client).
var builds = regexp.MustCompile(`\bgo (run|build)\b`)

// stepBound is how long a step may run: a block that compiles Go is bounded
// only by the test's own timeout, since its length depends on how warm the
// build cache is; 0 means no bound.
func stepBound(st Step) time.Duration {
	if st.Kind == Shell && builds.MatchString(st.Script) {
		return 0
	}
	return stepTimeout
}

// exec sends a script to bash and collects its output up to a marker,
// for at most bound (0: until the test's timeout).
func (s *shell) exec(i int, script string, bound time.Duration) (stdout, stderr string, err error) {
	marker := fmt.Sprintf("__README_STEP_%d_DONE__", i)
	if _, err := io.WriteString(s.stdin, script+"\nprintf '\\n%s\\n' "+marker+"\nprintf '%s\\n' "+marker+" >&2\n"); err != nil {
		return "", "", fmt.Errorf("the shell is gone: %v", err)
	}
	var expired <-chan time.Time
	if bound > 0 {
		deadline := time.NewTimer(bound)
		defer deadline.Stop()
		expired = deadline.C
	}
	collect := func(ch chan string) (string, error) {
		var b strings.Builder
		for {
			select {
			case line, ok := <-ch:
				if !ok {
					return b.String(), fmt.Errorf("the shell exited:\n%s", b.String())
				}
				if line == marker {
					return strings.TrimRight(b.String(), "\n"), nil
				}
				b.WriteString(line + "\n")
			case <-expired:
				return b.String(), fmt.Errorf("still running after %s:\n%s", bound, b.String())
			}
		}
	}
	if stdout, err = collect(s.stdout); err != nil {
		return stdout, "", err
	}
	stderr, err = collect(s.stderr)
	return stdout, stderr, err
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
