package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// runMain runs this binary's main() as `haulgraph <args>` in dir with only
// the given HAULGRAPH_* variables (apptest.CleanEnv drops the test's own).
func runMain(t *testing.T, dir, args string, env ...string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Dir = dir
	cmd.Env = apptest.CleanEnv(append([]string{"HAULGRAPH_TEST_MAIN=1", "HAULGRAPH_TEST_ARGS=" + args}, env...)...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// TestEncryptionKeyRequiredOutsideDemo: without HAULGRAPH_ENCRYPTION_KEY and
// outside the demo, serve and the CLI refuse to start (exit 1) and say how
// to make a key, instead of inventing one in the working directory.
func TestEncryptionKeyRequiredOutsideDemo(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.URL(t)
	for _, args := range []string{"serve", "keys rotate", "clients list --tenant acme"} {
		dir := t.TempDir()
		out, code := runMain(t, dir, args, "DATABASE_URL="+dbURL, "HAULGRAPH_ADDR="+apptest.FreeAddr(t))
		if code != 1 || !strings.Contains(out, "HAULGRAPH_ENCRYPTION_KEY is not set") || !strings.Contains(out, "openssl rand -base64 32") {
			t.Errorf("%s without a key: exit %d, output %q; want exit 1 naming the variable and the openssl hint", args, code, out)
		}
		if _, err := os.Stat(filepath.Join(dir, ".data")); !os.IsNotExist(err) {
			t.Errorf("%s without a key left something in its working directory: %v", args, err)
		}
	}
	out, code := runMain(t, t.TempDir(), "keys rotate", "DATABASE_URL="+dbURL, "HAULGRAPH_DEMO_DIR=relative/.data")
	if code != 1 || !strings.Contains(out, "HAULGRAPH_DEMO_DIR: an absolute path") {
		t.Errorf("a relative demo directory: exit %d, output %q", code, out)
	}
}

// TestDemoKeyFromAnyDirectory: in the demo every process finds the one key
// at $HAULGRAPH_DEMO_DIR/encryption.key whatever its working directory, so
// a signing key sealed by the first opens in the second (before, each
// directory got a key of its own and the second failed to decrypt).
func TestDemoKeyFromAnyDirectory(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.URL(t)
	demo := t.TempDir()
	for i, dir := range []string{t.TempDir(), t.TempDir(), t.TempDir()} {
		if out, code := runMain(t, dir, "keys rotate", "DATABASE_URL="+dbURL, "HAULGRAPH_DEMO_DIR="+demo); code != 0 {
			t.Fatalf("keys rotate #%d from %s: exit %d: %s", i+1, dir, code, out)
		}
		if _, err := os.Stat(filepath.Join(dir, ".data")); !os.IsNotExist(err) {
			t.Errorf("keys rotate #%d created .data in its working directory", i+1)
		}
	}
	st, err := os.Stat(filepath.Join(demo, "encryption.key"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("demo key file: %v, %v; want it created 0600", st, err)
	}
}

// TestWithPGMarksTheDemo: scripts/with-pg.sh exports the checkout's absolute
// .data as HAULGRAPH_DEMO_DIR (from any directory), and keeps one already set.
func TestWithPGMarksTheDemo(t *testing.T) {
	t.Parallel()
	root := apptest.RepoRoot(t)
	script := filepath.Join(root, "scripts", "with-pg.sh")
	for _, c := range []struct{ set, want string }{
		{"", filepath.Join(root, ".data")},
		{"/somewhere/else", "/somewhere/else"},
	} {
		cmd := exec.Command(script, "sh", "-c", `printf %s "$HAULGRAPH_DEMO_DIR"`)
		cmd.Dir = t.TempDir()
		env := apptest.CleanEnv("DATABASE_URL=postgres://unused") // set: the script runs the command without a cluster
		if c.set != "" {
			env = append(env, "HAULGRAPH_DEMO_DIR="+c.set)
		}
		cmd.Env = env
		out, err := cmd.Output()
		if err != nil || string(out) != c.want {
			t.Errorf("HAULGRAPH_DEMO_DIR=%q: with-pg.sh gave %q, %v; want %q", c.set, out, err, c.want)
		}
	}
}
