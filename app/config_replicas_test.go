package app_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
)

// The replicas come from the environment: a comma-separated list (blanks
// ignored) and a positive lag bound; none and 5s by default.
func TestReplicaConfigFromEnv(t *testing.T) {
	t.Setenv("DATABASE_URL", "postgres://unused")
	c, err := app.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.ReplicaURLs) != 0 || c.ReplicaMaxLag != 0 {
		t.Fatalf("defaults: %v %v, want none and zero (storage's 5s)", c.ReplicaURLs, c.ReplicaMaxLag)
	}
	t.Setenv("HAULGRAPH_REPLICA_URLS", " postgres://r1/haulgraph, ,postgres://r2/haulgraph ")
	t.Setenv("HAULGRAPH_REPLICA_MAX_LAG", "750ms")
	if c, err = app.FromEnv(); err != nil {
		t.Fatal(err)
	}
	if want := []string{"postgres://r1/haulgraph", "postgres://r2/haulgraph"}; !slices.Equal(c.ReplicaURLs, want) || c.ReplicaMaxLag != 750*time.Millisecond {
		t.Fatalf("got %q %v", c.ReplicaURLs, c.ReplicaMaxLag)
	}
	for _, v := range []string{"0s", "-1s", "soon"} {
		t.Setenv("HAULGRAPH_REPLICA_MAX_LAG", v)
		if _, err := app.FromEnv(); err == nil || !strings.Contains(err.Error(), "HAULGRAPH_REPLICA_MAX_LAG") {
			t.Errorf("HAULGRAPH_REPLICA_MAX_LAG=%s: %v, want an error naming it", v, err)
		}
	}
}
