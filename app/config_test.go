package app_test

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
)

// The GraphQL cost limit, budget and refill come from the environment;
// nonsense is refused at start, not discovered under load.
func TestGraphQLCostConfigFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	t.Setenv("HAULGRAPH_GRAPHQL_COST_LIMIT", "3000")
	t.Setenv("HAULGRAPH_GRAPHQL_COST_BUDGET", "9000")
	t.Setenv("HAULGRAPH_GRAPHQL_COST_REFILL", "450.5")
	c, err := app.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.GraphQLCostLimit != 3000 || c.GraphQLCostBudget != 9000 || c.GraphQLCostRefill != 450.5 {
		t.Fatalf("cost config %d %d %v", c.GraphQLCostLimit, c.GraphQLCostBudget, c.GraphQLCostRefill)
	}
	for _, tc := range []struct{ env, value, want string }{
		{"HAULGRAPH_GRAPHQL_COST_LIMIT", "0", "HAULGRAPH_GRAPHQL_COST_LIMIT"},
		{"HAULGRAPH_GRAPHQL_COST_BUDGET", "many", "HAULGRAPH_GRAPHQL_COST_BUDGET"},
		{"HAULGRAPH_GRAPHQL_COST_REFILL", "-1", "HAULGRAPH_GRAPHQL_COST_REFILL"},
		{"HAULGRAPH_GRAPHQL_COST_LIMIT", "9001", "exceeds HAULGRAPH_GRAPHQL_COST_BUDGET"},
	} {
		t.Run(tc.env+"="+tc.value, func(t *testing.T) {
			t.Setenv(tc.env, tc.value)
			if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s=%s: %v, want an error naming %s", tc.env, tc.value, err, tc.want)
			}
		})
	}
}

// The GraphQL document bounds come from the environment; nonsense is
// refused at start.
func TestGraphQLBoundsConfigFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	t.Setenv("HAULGRAPH_GRAPHQL_MAX_NODES", "800")
	t.Setenv("HAULGRAPH_GRAPHQL_MAX_NESTING", "20")
	t.Setenv("HAULGRAPH_GRAPHQL_MAX_ERRORS", "25")
	t.Setenv("HAULGRAPH_GRAPHQL_REFUSAL_COST", "50")
	t.Setenv("HAULGRAPH_GRAPHQL_REFUSAL_COST_PER_KIB", "2")
	c, err := app.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.GraphQLMaxNodes != 800 || c.GraphQLMaxNesting != 20 || c.GraphQLMaxErrors != 25 || c.GraphQLRefusalCost != 50 || c.GraphQLRefusalCostPerKiB != 2 {
		t.Fatalf("bounds %+v", c)
	}
	for _, env := range []string{"HAULGRAPH_GRAPHQL_MAX_NODES", "HAULGRAPH_GRAPHQL_MAX_NESTING", "HAULGRAPH_GRAPHQL_MAX_ERRORS",
		"HAULGRAPH_GRAPHQL_REFUSAL_COST", "HAULGRAPH_GRAPHQL_REFUSAL_COST_PER_KIB"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "0")
			if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), env) {
				t.Errorf("%s=0: %v", env, err)
			}
		})
	}
}

// The admin listener defaults to loopback, and an empty
// HAULGRAPH_ADMIN_ADDR (not an unset one) disables it; the database
// connect timeout is a positive duration.
func TestAdminAndConnectConfigFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	t.Setenv("HAULGRAPH_ADMIN_ADDR", "")
	c, err := app.FromEnv()
	if err != nil || c.AdminAddr != "" || c.DBConnectTimeout != 0 {
		t.Fatalf("empty HAULGRAPH_ADMIN_ADDR: %q %v %v", c.AdminAddr, c.DBConnectTimeout, err)
	}
	t.Setenv("HAULGRAPH_ADMIN_ADDR", "127.0.0.1:19090")
	t.Setenv("HAULGRAPH_DB_CONNECT_TIMEOUT", "750ms")
	if c, err = app.FromEnv(); err != nil || c.AdminAddr != "127.0.0.1:19090" || c.DBConnectTimeout != 750*time.Millisecond {
		t.Fatalf("set: %q %v %v", c.AdminAddr, c.DBConnectTimeout, err)
	}
	os.Unsetenv("HAULGRAPH_ADMIN_ADDR") // t.Setenv restores it afterwards
	if c, err = app.FromEnv(); err != nil || c.AdminAddr != app.DefaultAdminAddr || app.DefaultAdminAddr != "127.0.0.1:9090" {
		t.Fatalf("unset: %q %v", c.AdminAddr, err)
	}
	t.Setenv("HAULGRAPH_DB_CONNECT_TIMEOUT", "soon")
	if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), "HAULGRAPH_DB_CONNECT_TIMEOUT") {
		t.Fatalf("HAULGRAPH_DB_CONNECT_TIMEOUT=soon: %v", err)
	}
}

// The token endpoint's address and global buckets come from the
// environment; nonsense is refused at start.
func TestTokenThrottleConfigFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	t.Setenv("HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESS", "2.5")
	t.Setenv("HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESS_BURST", "12")
	t.Setenv("HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESSES", "500")
	t.Setenv("HAULGRAPH_RATE_LIMIT_TOKEN_GLOBAL", "40")
	t.Setenv("HAULGRAPH_RATE_LIMIT_TOKEN_GLOBAL_BURST", "80")
	c, err := app.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if c.TokenAddressRateLimit != 2.5 || c.TokenAddressRateBurst != 12 || c.TokenAddressMax != 500 ||
		c.TokenGlobalRateLimit != 40 || c.TokenGlobalRateBurst != 80 {
		t.Fatalf("token throttle config %+v", c)
	}
	for _, env := range []string{"HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESS", "HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESS_BURST",
		"HAULGRAPH_RATE_LIMIT_TOKEN_ADDRESSES", "HAULGRAPH_RATE_LIMIT_TOKEN_GLOBAL", "HAULGRAPH_RATE_LIMIT_TOKEN_GLOBAL_BURST"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "0")
			if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), env) {
				t.Errorf("%s=0: %v, want an error naming it", env, err)
			}
		})
	}
}

// HAULGRAPH_POOLER names a known pooler, and a pooler needs the direct URL
// (LISTEN and the migrations cannot go through it).
func TestPoolerConfigFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://bouncer/haulgraph")
	t.Setenv("HAULGRAPH_POOLER", "pgbouncer")
	t.Setenv("HAULGRAPH_DIRECT_DATABASE_URL", "")
	if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), "HAULGRAPH_DIRECT_DATABASE_URL") || !strings.Contains(err.Error(), "direct URL is required") {
		t.Fatalf("a pooler without the direct URL: %v", err)
	}
	t.Setenv("HAULGRAPH_DIRECT_DATABASE_URL", "postgres://server/haulgraph")
	c, err := app.FromEnv()
	if e := c.Endpoints(); err != nil || e.Pooler != "pgbouncer" || e.URL != "postgres://bouncer/haulgraph" || e.DirectURL != "postgres://server/haulgraph" {
		t.Fatalf("pgbouncer: %+v %v", c.Endpoints(), err)
	}
	t.Setenv("HAULGRAPH_POOLER", "pgpool")
	if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), "HAULGRAPH_POOLER") || !strings.Contains(err.Error(), `unknown pooler "pgpool"`) {
		t.Fatalf("HAULGRAPH_POOLER=pgpool: %v", err)
	}
}

// The drain of a stop: 10s unless HAULGRAPH_SHUTDOWN_DRAIN says otherwise,
// 0 for none; a negative or unreadable duration is refused at start.
func TestShutdownDrainFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	c, err := app.FromEnv()
	if err != nil || c.ShutdownDrain != 10*time.Second {
		t.Fatalf("default drain %v (%v), want 10s", c.ShutdownDrain, err)
	}
	for value, want := range map[string]time.Duration{"0": 0, "2500ms": 2500 * time.Millisecond} {
		t.Setenv("HAULGRAPH_SHUTDOWN_DRAIN", value)
		if c, err := app.FromEnv(); err != nil || c.ShutdownDrain != want {
			t.Errorf("HAULGRAPH_SHUTDOWN_DRAIN=%s: %v (%v), want %v", value, c.ShutdownDrain, err, want)
		}
	}
	for _, value := range []string{"-1s", "soon"} {
		t.Setenv("HAULGRAPH_SHUTDOWN_DRAIN", value)
		if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), "HAULGRAPH_SHUTDOWN_DRAIN") {
			t.Errorf("HAULGRAPH_SHUTDOWN_DRAIN=%s: %v, want an error naming it", value, err)
		}
	}
}
