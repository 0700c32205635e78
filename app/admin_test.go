package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/admin"
	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
)

// get answers url's status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, string(b)
}

// The admin listener serves metrics, pprof and both probes; the public
// one serves neither metrics nor pprof.
func TestAdminListenerRoutes(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	for path, want := range map[string]string{
		"/metrics":                  "# TYPE haulgraph_database_up gauge",
		"/debug/pprof/":             "goroutine",
		"/debug/pprof/cmdline":      "",
		"/debug/pprof/heap?debug=1": "heap profile",
		"/healthz":                  `{"status":"ok"}`,
		"/readyz":                   `{"status":"ready"}`,
	} {
		status, body := get(t, srv.AdminURL+path)
		if status != http.StatusOK || !strings.Contains(body, want) {
			t.Errorf("admin %s: %d %.200q, want 200 with %q", path, status, body, want)
		}
	}
	for _, path := range []string{"/metrics", "/debug/pprof/", "/debug/pprof/heap", "/readyz"} {
		if status, _ := get(t, srv.URL+path); status != http.StatusNotFound {
			t.Errorf("public %s: %d, want 404", path, status)
		}
	}
	// Once a stop has begun the instance is no longer ready; it is still live.
	srv.GoingAway()
	if status, body := get(t, srv.AdminURL+"/readyz"); status != http.StatusServiceUnavailable || !strings.Contains(body, `"reason":"stopping"`) {
		t.Errorf("/readyz while stopping: %d %s", status, body)
	}
	if status, _ := get(t, srv.AdminURL+"/healthz"); status != http.StatusOK {
		t.Errorf("/healthz while stopping: %d", status)
	}
}

// /readyz wants every migration applied: forgetting one makes it 503.
func TestReadyzWantsCurrentMigrations(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	if status, body := get(t, srv.AdminURL+"/readyz"); status != http.StatusOK {
		t.Fatalf("/readyz: %d %s", status, body)
	}
	var last string
	if err := srv.DB.Pool.QueryRow(context.Background(), "DELETE FROM schema_migrations WHERE version = (SELECT max(version) FROM schema_migrations) RETURNING version").Scan(&last); err != nil {
		t.Fatal(err)
	}
	status, body := get(t, srv.AdminURL+"/readyz")
	var answer map[string]string
	_ = json.Unmarshal([]byte(body), &answer)
	if status != http.StatusServiceUnavailable || answer["reason"] != "migrations pending" {
		t.Fatalf("/readyz with %s not applied: %d %s", last, status, body)
	}
}

// The admin listener is bounded like the public one: another Host is
// refused (DNS rebinding from an operator's browser), a large body is
// refused before it is read (pprof's symbol lookup answered 39 MB with
// 177 MB), connections over the cap are closed at once, and its server has
// read, write and idle timeouts.
func TestAdminListenerBounded(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	req, _ := http.NewRequest(http.MethodGet, srv.AdminURL+"/debug/pprof/cmdline", nil)
	req.Host = "rebound.example:9090"
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("Host rebound.example: %d, want 421", res.StatusCode)
	}
	// Addresses name nothing a page could rebind: a Kubernetes probe sends
	// the pod's IP, an HTTP/1.0 health check no Host at all.
	for _, host := range []string{"localhost:9090", "127.0.0.1", "[::1]:9090", "10.1.2.3:9090", ""} {
		req, _ := http.NewRequest(http.MethodGet, srv.AdminURL+"/healthz", nil)
		req.Host = host
		if res, err := http.DefaultClient.Do(req); err != nil || res.StatusCode != http.StatusOK {
			t.Errorf("Host %s: %v %v", host, err, res)
		} else {
			res.Body.Close()
		}
	}

	// 39 MB declared: refused from its length, nothing read; and a body
	// that hides its length (chunked) is cut at admin.MaxBody.
	body := strings.Repeat("0x1+", 10<<20)
	res, err = http.Post(srv.AdminURL+"/debug/pprof/symbol", "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusRequestEntityTooLarge || len(b) > 1<<10 {
		t.Errorf("39 MB symbol lookup: %d with %d bytes", res.StatusCode, len(b))
	}
	res, err = http.Post(srv.AdminURL+"/debug/pprof/symbol", "text/plain", io.MultiReader(strings.NewReader(body)))
	if err == nil {
		b, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if len(b) > admin.MaxBody*8 {
			t.Errorf("chunked symbol lookup answered %d bytes", len(b))
		}
	}

	s := srv.AdminServer()
	if s.ReadTimeout <= 0 || s.WriteTimeout <= 0 || s.IdleTimeout <= 0 || s.ReadHeaderTimeout <= 0 {
		t.Errorf("admin server without timeouts: %+v", s)
	}
	// The cap: AdminMaxConns connections held, the next is closed unread.
	host := strings.TrimPrefix(srv.AdminURL, "http://")
	var held []net.Conn
	defer func() {
		for _, c := range held {
			c.Close()
		}
	}()
	for range app.AdminMaxConns {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		held = append(held, c)
	}
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 64)); err == nil || isTimeoutErr(err) {
		t.Errorf("connection %d over the cap answered (%d bytes, %v)", app.AdminMaxConns+1, n, err)
	}
}

func isTimeoutErr(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
