package app_test

import (
	"strings"
	"testing"

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
