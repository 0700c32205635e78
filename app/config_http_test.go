package app_test

import (
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
)

// The HTTP connection bounds come from HAULGRAPH_HTTP_*; nonsense is
// refused at start, and 0 lifts the per-address cap.
func TestHTTPLimitsFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	t.Setenv("HAULGRAPH_HTTP_READ_HEADER_TIMEOUT", "3s")
	t.Setenv("HAULGRAPH_HTTP_IDLE_TIMEOUT", "20s")
	t.Setenv("HAULGRAPH_HTTP_BODY_TIMEOUT", "4s")
	t.Setenv("HAULGRAPH_HTTP_BODY_MIN_RATE", "512")
	t.Setenv("HAULGRAPH_HTTP_WRITE_TIMEOUT", "7s")
	t.Setenv("HAULGRAPH_HTTP_MAX_CONNS_PER_ADDR", "0")
	c, err := app.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	want := app.HTTPLimits{ReadHeaderTimeout: 3 * time.Second, IdleTimeout: 20 * time.Second, BodyTimeout: 4 * time.Second,
		BodyMinRate: 512, WriteTimeout: 7 * time.Second, MaxConnsPerAddr: -1}
	if c.HTTP != want {
		t.Fatalf("limits %+v, want %+v", c.HTTP, want)
	}
	for env, bad := range map[string]string{"HAULGRAPH_HTTP_IDLE_TIMEOUT": "0s", "HAULGRAPH_HTTP_BODY_MIN_RATE": "fast",
		"HAULGRAPH_HTTP_MAX_CONNS_PER_ADDR": "-2", "HAULGRAPH_HTTP_WRITE_TIMEOUT": "soon"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, bad)
			if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), env) {
				t.Fatalf("%s=%s: %v", env, bad, err)
			}
		})
	}
}
