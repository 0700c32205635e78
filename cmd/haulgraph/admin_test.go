package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// startServe runs `haulgraph serve` with adminAddr as HAULGRAPH_ADMIN_ADDR
// and returns it with the lines it printed up to "HaulGraph serving on".
func startServe(t *testing.T, dbURL, adminAddr string) (*exec.Cmd, []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = apptest.CleanEnv("HAULGRAPH_TEST_MAIN=1", "HAULGRAPH_TEST_ARGS=serve", "DATABASE_URL="+dbURL,
		"HAULGRAPH_ADDR="+apptest.FreeAddr(t), "HAULGRAPH_ADMIN_ADDR="+adminAddr, "HAULGRAPH_ENCRYPTION_KEY="+testKey,
		"HAULGRAPH_BLOB_URL=file://"+filepath.Join(t.TempDir(), "blobs"), "HAULGRAPH_SHUTDOWN_DRAIN=0")
	stderr := &apptest.LockedBuffer{}
	cmd.Stderr = stderr
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 64) // what is printed before serving; later lines are dropped
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			default:
			}
		}
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait(); <-done })
	var printed []string
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatalf("serve ended before serving: %q %s", printed, stderr)
			}
			printed = append(printed, l)
			if strings.HasPrefix(l, "HaulGraph serving on ") {
				return cmd, printed
			}
		case <-timeout:
			t.Fatalf("serve did not start within 60 s: %s", stderr)
		}
	}
}

func fetch(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// A real `haulgraph serve` opens the admin listener on HAULGRAPH_ADMIN_ADDR
// (metrics, pprof, probes) and not on the public port; it closes it when
// it stops, exiting 0. Empty HAULGRAPH_ADMIN_ADDR disables it.
func TestServeAdminListener(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.URL(t)
	adminAddr := apptest.FreeAddr(t)
	cmd, printed := startServe(t, dbURL, adminAddr)
	if !strings.Contains(strings.Join(printed, "\n"), "Admin listener on http://"+adminAddr) {
		t.Errorf("serve printed %q, want the admin listener's address", printed)
	}
	public := "http://" + strings.Fields(strings.TrimPrefix(printed[len(printed)-1], "HaulGraph serving on http://"))[0]
	admin := "http://" + adminAddr
	for path, want := range map[string]string{
		"/metrics": "haulgraph_database_up 1", "/healthz": "ok", "/readyz": "ready", "/debug/pprof/": "goroutine",
	} {
		if status, body := fetch(t, admin+path); status != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("admin %s: %d, want 200 with %q", path, status, want)
		}
	}
	for _, path := range []string{"/metrics", "/debug/pprof/"} {
		if status, _ := fetch(t, public+path); status != http.StatusNotFound {
			t.Errorf("public %s: %d, want 404", path, status)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve after SIGTERM: %v", err)
	}
	if c, err := net.Dial("tcp", adminAddr); err == nil {
		c.Close()
		t.Errorf("the admin listener still accepts after the stop")
	}

	_, printed = startServe(t, dbURL, "")
	if strings.Contains(strings.Join(printed, "\n"), "Admin listener") {
		t.Errorf("HAULGRAPH_ADMIN_ADDR empty still opened an admin listener: %q", printed)
	}
}
