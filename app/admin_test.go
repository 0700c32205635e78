package app_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

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
