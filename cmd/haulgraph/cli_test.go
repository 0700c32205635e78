package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
)

// built is `go build` of this command, made once for the tests that
// run the binary exactly as an operator does.
var built struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// haulgraphBinary builds this command into this checkout's kept directory
// (apptest.Kept), where go build finds it up to date on a warm run.
func haulgraphBinary(t *testing.T) string {
	t.Helper()
	root := apptest.RepoRoot(t)
	built.once.Do(func() {
		_, built.err = apptest.Kept("cli", root, func(dir string) error {
			built.path = filepath.Join(dir, "haulgraph")
			// -trimpath, as the tests that run make build in a copy of the
			// tree: one build in the cache serves them all.
			built.out, built.err = exec.Command("go", "build", "-trimpath", "-o", built.path, ".").CombinedOutput()
			return built.err
		})
	})
	if built.err != nil {
		t.Fatalf("go build: %v\n%s", built.err, built.out)
	}
	return built.path
}

// deadDatabase is a DATABASE_URL whose "server" accepts and at once closes
// every connection: no command can use it, and the returned counter says
// whether one tried.
func deadDatabase(t *testing.T) (string, *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var dialled atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialled.Add(1)
			c.Close()
		}
	}()
	return "postgres://haulgraph@" + ln.Addr().String() + "/haulgraph?sslmode=disable&connect_timeout=2", &dialled
}

// runBinary runs the built binary with args in an empty directory, with a
// database that cannot be used and no encryption key.
func runBinary(t *testing.T, args ...string) (stdout, stderr string, code int, dialled int32, dir string) {
	t.Helper()
	dbURL, n := deadDatabase(t)
	cmd := exec.Command(haulgraphBinary(t), args...)
	cmd.Dir = t.TempDir()
	cmd.Env = apptest.CleanEnv("DATABASE_URL=" + dbURL)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return out.String(), errOut.String(), code, n.Load(), cmd.Dir
}

// TestHelpNeedsNoDatabase: every command and action answers --help, -h and
// `haulgraph help …` with its usage and flags on stdout and exit 0, without
// a usable database or an encryption key, and without acting (before,
// `migrate --help` migrated and `clients --help` failed for want of a key).
func TestHelpNeedsNoDatabase(t *testing.T) {
	t.Parallel()
	type want struct {
		args []string
		has  []string // in stdout
	}
	cases := []want{
		{[]string{"--help"}, []string{"usage: haulgraph <command>", "serve", "migrate", "tenants", "subsidiaries", "clients", "keys", "seed", "webhooks", "listen", "trigger", "version"}},
		{[]string{"-h"}, []string{"usage: haulgraph <command>"}},
		{[]string{"help"}, []string{"usage: haulgraph <command>"}},
		{[]string{"help", "--help"}, []string{"usage: haulgraph <command>"}},
		{[]string{"serve", "--help"}, []string{"usage: haulgraph serve", "-seed-demo"}},
		{[]string{"migrate", "--help"}, []string{"usage: haulgraph migrate", "DATABASE_URL"}},
		{[]string{"seed", "--help"}, []string{"usage: haulgraph seed", "-tenant", "-scale"}},
		{[]string{"version", "--help"}, []string{"usage: haulgraph version"}},
		{[]string{"listen", "--help"}, []string{"usage: haulgraph listen", "-forward-to", "-events", "-scheme", "-from", "-client-id", "HAULGRAPH_CLIENT_SECRET"}},
		{[]string{"listen", "-h"}, []string{"usage: haulgraph listen", "-forward-to"}},
		{[]string{"listen", "help"}, []string{"usage: haulgraph listen", "--forward-to"}},
		{[]string{"help", "listen"}, []string{"usage: haulgraph listen", "-forward-to"}},
		{[]string{"trigger", "--help"}, []string{"haulgraph trigger load.changed", "haulgraph trigger load.status.changed", "haulgraph trigger trip.changed"}},
	}
	// Every command the binary has, whatever the table above says of it.
	for _, c := range commands() {
		cases = append(cases, want{[]string{c.name, "--help"}, []string{"usage:"}}, want{[]string{"help", c.name}, []string{"usage:"}})
		for _, a := range c.actions {
			has := []string{"usage: haulgraph " + c.name + " " + a.name}
			if len(a.flags) > 0 {
				has = append(has, "flags of haulgraph "+c.name+" "+a.name)
			}
			cases = append(cases, want{[]string{"help", c.name, a.name}, has}, want{[]string{c.name, a.name, "help"}, has})
		}
	}
	actions := map[string][]string{
		"tenants":      {"create", "list"},
		"subsidiaries": {"create", "list"},
		"clients":      {"create", "list", "revoke", "edit"},
		"keys":         {"rotate"},
		"trigger":      {"load.changed", "load.status.changed", "trip.changed"},
		"webhooks":     {"create", "list", "get", "update", "enable", "disable", "rotate-secret", "regenerate-secret", "delete", "redeliver", "deliveries", "recover"},
	}
	flagOf := map[string]string{"tenants": "--json", "subsidiaries": "--tenant", "clients": "--tenant", "keys": "haulgraph keys rotate", "webhooks": "--tenant", "trigger": "--load"}
	for cmd, acts := range actions {
		usage := "usage:"
		cases = append(cases, want{[]string{cmd, "--help"}, []string{usage}}, want{[]string{"help", cmd}, []string{usage}})
		for _, a := range acts {
			has := []string{usage, flagOf[cmd]}
			cases = append(cases, want{[]string{cmd, a, "--help"}, has}, want{[]string{cmd, a, "-h"}, has}, want{[]string{"help", cmd, a}, has})
		}
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code, dialled, dir := runBinary(t, c.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q; want exit 0 and nothing on stderr", code, stderr)
			}
			for _, s := range c.has {
				if !strings.Contains(stdout, s) {
					t.Errorf("stdout lacks %q:\n%s", s, stdout)
				}
			}
			if dialled != 0 {
				t.Errorf("help connected to the database %d times", dialled)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("help left %d entries in its working directory (%s…)", len(entries), entries[0].Name())
			}
		})
	}
}

// TestBadCommandLine: an unknown command, action or flag, none at all, a
// flag the action does not take or a bad flag value exits 2 with two lines
// on stderr, the first naming the problem, the second the help to read,
// before anything touches the database.
func TestBadCommandLine(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args  []string
		named string // in stderr
	}{
		{nil, "no command"},
		{[]string{"nope"}, `unknown command "nope"`},
		{[]string{"help", "nope"}, `unknown command "nope"`},
		{[]string{"--nope"}, `unknown command "--nope"`},
		{[]string{"clients", "bogus"}, `unknown action "bogus"`},
		{[]string{"help", "webhooks", "bogus"}, `unknown action "bogus"`},
		{[]string{"keys"}, "no action"},
		{[]string{"serve", "--bogus"}, "-bogus"},
		{[]string{"migrate", "--dry-run"}, "-dry-run"},
		{[]string{"seed", "--tenant", "x", "--size", "3"}, "-size"},
		{[]string{"tenants", "list", "--all"}, "-all"},
		{[]string{"clients", "create", "--tenant", "acme", "--secret", "s"}, "-secret"},
		{[]string{"keys", "rotate", "--now"}, "-now"},
		{[]string{"webhooks", "list", "--tenant", "acme", "--page", "2"}, "-page"},
		{[]string{"migrate", "now"}, `unexpected argument "now"`},
		{[]string{"version", "--short"}, "-short"},
		{[]string{"listen", "--forward", "http://127.0.0.1:3000"}, "-forward"},
		{[]string{"listen"}, "--forward-to is required"},
		{[]string{"listen", "--forward-to", "localhost:3000/hooks"}, `"localhost:3000/hooks" is not an http(s) URL`},
		{[]string{"listen", "--forward-to", "http://127.0.0.1:3000/hooks", "--scheme", "hmac"}, `unknown --scheme "hmac"`},
		{[]string{"listen", "--forward-to", "http://127.0.0.1:3000/hooks", "extra"}, `unexpected argument "extra"`},
		{[]string{"trigger"}, "no action"},
		{[]string{"trigger", "invoice.paid"}, `unknown action "invoice.paid"`},
		{[]string{"trigger", "load.changed", "--tenant", "acme"}, "-tenant"},
		{[]string{"trigger", "load.changed"}, "no API client"},
		{[]string{"trigger", "trip.changed", "--api", "ftp://x"}, `--api "ftp://x" is not an http(s) URL`},
		{[]string{"seed", "--tenant", "perf", "--scale", "5000"}, "--scale 5000: give 1 to 1000"},
		{[]string{"seed", "--scale", "5"}, "--tenant is required"},
		{[]string{"clients", "create", "--tenant", "acme", "--name", "x", "--scopes", "load:read bogus:read"}, `unknown scope "bogus:read"`},
		{[]string{"clients", "create", "--tenant", "acme", "--name", "x"}, "--scopes is required"},
		{[]string{"clients", "edit", "--tenant", "acme", "--client-id", "c", "--expires", "soon"}, `--expires "soon"`},
		{[]string{"clients", "list", "--tenant", "acme", "--name", "x"}, "--name does not apply to clients list"},
		{[]string{"webhooks", "get", "--tenant", "acme", "--id", "42"}, `--id "42" is not an id`},
		{[]string{"webhooks", "get", "--tenant", "acme"}, "--id is required"},
		{[]string{"webhooks", "deliveries", "--tenant", "acme", "--id", "6f1c1f3e-8f4b-4c4e-9a77-1d2b3c4d5e6f", "--limit", "1000"}, "--limit 1000: give 1 to 100"},
		{[]string{"webhooks", "create", "--tenant", "acme", "--name", "n", "--url", "https://x", "--events", "load.changed", "--signature-scheme", "hmac"}, `--signature-scheme "hmac"`},
		{[]string{"webhooks", "redeliver", "--tenant", "acme", "--id", "6f1c1f3e-8f4b-4c4e-9a77-1d2b3c4d5e6f"}, "give one of --delivery and --event"},
		{[]string{"webhooks", "recover", "--tenant", "acme", "--id", "6f1c1f3e-8f4b-4c4e-9a77-1d2b3c4d5e6f", "--since", "yesterday"}, "--since must be"},
		{[]string{"tenants", "create", "--name", "Acme"}, "--slug is required"},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code, dialled, _ := runBinary(t, c.args...)
			if code != 2 || !strings.Contains(stderr, c.named) {
				t.Errorf("exit %d, stderr %q; want exit 2 naming %q", code, stderr, c.named)
			}
			if stdout != "" {
				t.Errorf("stdout %q; want the complaint on stderr only", stdout)
			}
			if lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[1], "Run 'haulgraph help") {
				t.Errorf("stderr %q; want two lines: the problem, then which help to read", stderr)
			}
			if dialled != 0 {
				t.Errorf("a bad command line connected to the database %d times", dialled)
			}
		})
	}
}

// TestActionHelp: an action's help shows its own synopsis and only the
// flags it takes, written --flag as the docs write them; an old action name
// shows the help of the action it now names.
func TestActionHelp(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args       []string
		has, lacks []string
	}{
		{[]string{"help", "clients", "create"}, []string{"usage: haulgraph clients create --tenant SLUG --name NAME", "  --scopes", "load:read", "webhook:manage"}, []string{"--client-id", "haulgraph clients list"}},
		{[]string{"clients", "revoke", "--help"}, []string{"usage: haulgraph clients revoke", "  --client-id"}, []string{"--scopes", "--expires"}},
		{[]string{"help", "webhooks", "regenerate-secret"}, []string{"usage: haulgraph webhooks rotate-secret", "also: regenerate-secret", "  --rotation-window"}, []string{"--url"}},
		{[]string{"help", "webhooks", "redeliver"}, []string{"--delivery", "--event", "--event (by event id) is deprecated", "(deprecated: use --delivery)"}, []string{"--since"}},
		{[]string{"help", "clients"}, []string{"haulgraph clients create", "haulgraph clients edit", "Run 'haulgraph help clients ACTION'"}, []string{"flags of"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			t.Parallel()
			stdout, stderr, code, _, _ := runBinary(t, c.args...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			for _, s := range c.has {
				if !strings.Contains(stdout, s) {
					t.Errorf("help lacks %q:\n%s", s, stdout)
				}
			}
			for _, s := range c.lacks {
				if strings.Contains(stdout, s) {
					t.Errorf("help shows %q, which is not this action's:\n%s", s, stdout)
				}
			}
			for _, line := range strings.Split(stdout, "\n") {
				if len(line) > 200 {
					t.Errorf("a help line of %d characters: %.80s…", len(line), line)
				}
			}
		})
	}
}

// TestVersion: `haulgraph version` prints the build's module version and,
// when the toolchain recorded one, its VCS revision, and exits 0.
func TestVersion(t *testing.T) {
	t.Parallel()
	stdout, stderr, code, _, _ := runBinary(t, "version")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	info, err := exec.Command("go", "version", "-m", haulgraphBinary(t)).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{runtime.Version()}
	for _, line := range strings.Split(string(info), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) >= 3 && f[0] == "mod" && f[1] == "github.com/haulgraph/haulgraph":
			want = append(want, "haulgraph "+f[2])
		case len(f) >= 2 && f[0] == "build" && strings.HasPrefix(f[1], "vcs.revision="):
			want = append(want, strings.TrimPrefix(f[1], "vcs.revision="))
		}
	}
	if len(want) < 2 {
		t.Fatalf("go version -m names no module version:\n%s", info)
	}
	for _, w := range want {
		if !strings.Contains(stdout, w) {
			t.Errorf("version printed %q; want it to contain %q", stdout, w)
		}
	}
}
