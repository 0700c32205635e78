package app_test

import (
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/app"
)

// The per-tenant persisted-query bounds come from the environment; zero or
// nonsense is refused at start.
func TestPersistedQueryConfigFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	t.Setenv("HAULGRAPH_PERSISTED_QUERIES_PER_TENANT", "50")
	t.Setenv("HAULGRAPH_PERSISTED_QUERY_BYTES_PER_TENANT", "65536")
	c, err := app.FromEnv()
	if err != nil || c.PersistedQueriesPerTenant != 50 || c.PersistedQueryBytesPerTenant != 65536 {
		t.Fatalf("persisted query config %d %d %v", c.PersistedQueriesPerTenant, c.PersistedQueryBytesPerTenant, err)
	}
	for _, env := range []string{"HAULGRAPH_PERSISTED_QUERIES_PER_TENANT", "HAULGRAPH_PERSISTED_QUERY_BYTES_PER_TENANT"} {
		for _, v := range []string{"0", "many"} {
			t.Setenv(env, v)
			if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), env) {
				t.Errorf("%s=%s: %v", env, v, err)
			}
		}
		t.Setenv(env, "10")
	}
}
