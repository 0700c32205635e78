package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// TestServeSeedDemoStopsCleanlyOnSIGTERM: a stop signal while `serve
// --seed-demo` seeds exits 0 and keeps nothing of the demo tenant, whether
// it comes during the first transaction (tenant and reference data) or
// while loads and statements are copied; the next start seeds it whole.
func TestServeSeedDemoStopsCleanlyOnSIGTERM(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		sig   syscall.Signal
		after string // progress text after which the signal is sent
	}{
		{"SIGINT in the first transaction", syscall.SIGINT, "seed:   0%"},
		{"SIGTERM while copying loads and statements", syscall.SIGTERM, "seed:  30%"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dbURL := dbtest.URL(t)
			dir := t.TempDir()
			out := apptest.NewOutput()
			cmd := exec.Command(os.Args[0])
			cmd.Dir = dir // where the demo's .data lives
			cmd.Env = apptest.CleanEnv("HAULGRAPH_TEST_MAIN=1", "HAULGRAPH_TEST_ARGS=serve --seed-demo",
				"DATABASE_URL="+dbURL, "HAULGRAPH_ADDR="+apptest.FreeAddr(t), "HAULGRAPH_ADMIN_ADDR=", "HAULGRAPH_ENCRYPTION_KEY="+testKey,
				"HAULGRAPH_DEMO_DIR="+filepath.Join(dir, ".data"), "HAULGRAPH_BLOB_URL=file://"+filepath.Join(dir, "blobs"))
			cmd.Stdout, cmd.Stderr = out, out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			exited := make(chan struct{})
			go func() { _ = cmd.Wait(); close(exited) }()
			if !out.WaitFor(c.after, exited, time.Minute) {
				_ = cmd.Process.Kill()
				<-exited
				t.Fatalf("no %q in the output:\n%s", c.after, out.String())
			}
			if err := cmd.Process.Signal(c.sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-exited
				t.Fatalf("still running 30 s after %s:\n%s", c.sig, out.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("exit status %d after %s:\n%s", code, c.sig, out.String())
			}
			if a := alarmingOutput(out.String()); a != "" {
				t.Errorf("alarming output %q:\n%s", a, out.String())
			}
			conn, err := pgx.Connect(context.Background(), dbURL)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			for _, table := range []string{"tenants", "subsidiaries", "drivers", "loads", "settlement_statements", "api_clients"} {
				var n int
				if err := conn.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
					t.Fatal(err)
				}
				if n != 0 {
					t.Errorf("%d rows left in %s after %s", n, table, c.sig)
				}
			}
		})
	}
}

// alarmingOutput finds what an operator would read as a failure in a
// stopping server's output: error-level log records, panics, or the
// command's own error line.
func alarmingOutput(out string) string {
	return regexp.MustCompile(`(?m)^.*("level":"ERROR"|panic|^haulgraph: ).*$`).FindString(out)
}
