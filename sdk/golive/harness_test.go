// Package golive runs the Go SDK (its own module, sdk/haulgraph) and its
// example programs against real instances of the server, and checks that
// the SDK builds alone, without the server's dependency graph.
package golive

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/sdk/haulgraph"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
)

// fixture is one real instance with the demo data of one tenant.
type fixture struct {
	srv    *apptest.Server
	seed   *seed.Result
	tenant apptest.Tenant
}

func newFixture(t *testing.T, opts apptest.Options) *fixture {
	t.Helper()
	var res *seed.Result
	if opts.DatabaseURL == "" {
		opts.DatabaseURL, res = seedtest.URL(t, seed.Options{Tenant: "acme", Scale: 1})
	}
	srv := apptest.Start(t, opts)
	if res == nil {
		var err error
		if res, err = seed.Run(context.Background(), srv.DB, seed.Options{Tenant: "acme", Scale: 1}); err != nil {
			t.Fatalf("seed: %v", err)
		}
	}
	return &fixture{srv: srv, seed: res, tenant: apptest.Tenant{ID: res.TenantID, Slug: "acme", SubsidiaryID: res.SubsidiaryID}}
}

// credentials creates an OAuth client of the tenant holding scopes.
func (f *fixture) credentials(t *testing.T, scopes ...domain.Scope) (string, string) {
	t.Helper()
	return f.srv.Client(t, f.tenant, scopes...)
}

// client is the SDK signed in with a new client holding scopes.
func (f *fixture) client(t *testing.T, scopes []domain.Scope, opts ...haulgraph.Option) *haulgraph.Client {
	t.Helper()
	id, secret := f.credentials(t, scopes...)
	c, err := haulgraph.New(append([]haulgraph.Option{haulgraph.WithBaseURL(f.srv.URL), haulgraph.WithClientCredentials(id, secret),
		haulgraph.WithAudience(f.srv.Config.Audience)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// sdkDir is the SDK module's directory.
const sdkDir = "../haulgraph"

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
	buildOut  []byte
)

// example is the path of an example program, built once per test binary
// into this checkout's kept directory (apptest.Kept), where go build finds
// the programs up to date on a warm run.
func example(t *testing.T, name string) string {
	t.Helper()
	root := apptest.RepoRoot(t)
	buildOnce.Do(func() {
		binDir, buildErr = apptest.Kept("sdk-examples", root, func(dir string) error {
			// In the SDK's own module, as an integrator's build would be.
			cmd := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "./examples/...")
			cmd.Dir = sdkDir
			cmd.Env = append(os.Environ(), "GOWORK=off")
			var err error
			buildOut, err = cmd.CombinedOutput()
			return err
		})
	})
	if buildErr != nil {
		t.Fatalf("building the examples: %v\n%s", buildErr, buildOut)
	}
	return filepath.Join(binDir, name)
}

// program is an example running as its own process; its stdout arrives
// line by line.
type program struct {
	cmd    *exec.Cmd
	lines  chan string
	stderr *strings.Builder
	read   sync.WaitGroup
	mu     sync.Mutex
}

// start runs an example with env (HG_* credentials) and args; the test's
// end stops it.
func start(t *testing.T, name string, env []string, args ...string) *program {
	t.Helper()
	cmd := exec.Command(example(t, name), args...)
	cmd.Env = append(os.Environ(), env...)
	p := &program{cmd: cmd, lines: make(chan string, 1000), stderr: &strings.Builder{}}
	cmd.Stderr = &lockedWriter{mu: &p.mu, w: p.stderr}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.read.Go(func() {
		defer close(p.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	})
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			p.read.Wait()
			_ = cmd.Wait()
		}
	})
	return p
}

func (p *program) errors() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stderr.String()
}

// line waits for the next line of output (the deadline only bounds a hang).
func (p *program) line(t *testing.T) string {
	t.Helper()
	select {
	case l, ok := <-p.lines:
		if !ok {
			t.Fatalf("%s ended early; stderr:\n%s", filepath.Base(p.cmd.Path), p.errors())
		}
		return l
	case <-time.After(60 * time.Second):
		t.Fatalf("%s printed nothing for 60 s; stderr:\n%s", filepath.Base(p.cmd.Path), p.errors())
		return ""
	}
}

// wait collects the rest of the output and the exit status.
func (p *program) wait(t *testing.T) []string {
	t.Helper()
	var rest []string
	for l := range p.lines {
		rest = append(rest, l)
	}
	p.read.Wait()
	if err := p.cmd.Wait(); err != nil {
		t.Fatalf("%s: %v; stderr:\n%s", filepath.Base(p.cmd.Path), err, p.errors())
	}
	return rest
}

// run runs an example to its end and returns its output lines.
func run(t *testing.T, name string, env []string, args ...string) []string {
	t.Helper()
	return start(t, name, env, args...).wait(t)
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// proxy forwards TCP connections to a server and can cut every open one,
// as a network failure would.
type proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  map[net.Conn]bool
	wg     sync.WaitGroup
}

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		ln.Close()
		p.cut()
		p.wg.Wait()
	})
	return p
}

func (p *proxy) URL() string { return "http://" + p.ln.Addr().String() }

func (p *proxy) accept() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			in.Close()
			continue
		}
		p.mu.Lock()
		p.conns[in], p.conns[out] = true, true
		p.mu.Unlock()
		pipe := func(dst, src net.Conn) {
			_, _ = io.Copy(dst, src)
			dst.Close()
			src.Close()
		}
		p.wg.Go(func() { pipe(out, in) })
		p.wg.Go(func() { pipe(in, out) })
	}
}

// cut closes every connection open now.
func (p *proxy) cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.conns)
	for c := range p.conns {
		c.Close()
		delete(p.conns, c)
	}
	return n
}

// waitFor polls cond until it holds; the deadline only bounds a hang.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30 s for %s", what)
		}
		<-tick.C
	}
}
