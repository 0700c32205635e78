package app_test

import (
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/app"
)

// The bounds of GraphQL event streams come from the environment; nonsense
// is refused at start.
func TestSSEStreamBoundsFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	t.Setenv("HAULGRAPH_SSE_MAX_STREAMS_CLIENT", "7")
	t.Setenv("HAULGRAPH_SSE_MAX_STREAMS_TENANT", "70")
	c, err := app.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.SSEMaxStreamsClient != 7 || c.SSEMaxStreamsTenant != 70 {
		t.Fatalf("stream bounds %d %d", c.SSEMaxStreamsClient, c.SSEMaxStreamsTenant)
	}
	for _, env := range []string{"HAULGRAPH_SSE_MAX_STREAMS_CLIENT", "HAULGRAPH_SSE_MAX_STREAMS_TENANT"} {
		for _, v := range []string{"0", "many"} {
			t.Run(env+"="+v, func(t *testing.T) {
				t.Setenv(env, v)
				if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), env) {
					t.Errorf("%s=%s: %v, want an error naming it", env, v, err)
				}
			})
		}
	}
}
