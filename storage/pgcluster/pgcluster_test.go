package pgcluster_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/storage/pgcluster"
)

func scalar[T any](t *testing.T, url, sql string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var v T
	if err := conn.QueryRow(ctx, sql).Scan(&v); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}

// A synchronous standby carries the migrated schema, sees a committed row
// as soon as the commit returns, survives a stop and start, and takes
// writes once promoted.
func TestSynchronousStandby(t *testing.T) {
	t.Parallel()
	started := time.Now()
	c := pgcluster.Start(t, pgcluster.Options{Standbys: 1, Synchronous: true})
	t.Logf("1+1 cluster in %v", time.Since(started))
	p, s := c.Primary(), c.Standby(1)

	if n := scalar[int](t, s.URL(""), "SELECT count(*)::int FROM schema_migrations"); n == 0 {
		t.Fatal("the standby has no migrations")
	}
	if !scalar[bool](t, s.URL(""), "SELECT pg_is_in_recovery()") {
		t.Fatal("standby1 is not in recovery")
	}
	if got := scalar[string](t, p.URL(""), "SELECT sync_state FROM pg_stat_replication WHERE application_name = 'standby1'"); got != "sync" {
		t.Fatalf("standby1's sync_state = %q, want sync", got)
	}
	p.Exec("", "CREATE TABLE pgcluster_probe (v int)", "INSERT INTO pgcluster_probe VALUES (1)")
	s.WaitReplay(30 * time.Second)
	if n := scalar[int](t, s.URL(""), "SELECT count(*)::int FROM pgcluster_probe"); n != 1 {
		t.Fatalf("standby rows = %d, want 1", n)
	}

	s.Stop()
	if s.Running() {
		t.Fatal("standby still running after Stop")
	}
	s.Start()
	s.Promote()
	if c.Primary() != s {
		t.Fatal("Primary() is not the promoted standby")
	}
	s.Exec("", "INSERT INTO pgcluster_probe VALUES (2)")
	if n := scalar[int](t, s.URL(""), "SELECT count(*)::int FROM pgcluster_probe"); n != 2 {
		t.Fatalf("promoted rows = %d, want 2", n)
	}
}

// A standby with recovery_min_apply_delay lags behind the primary by it.
func TestApplyDelay(t *testing.T) {
	t.Parallel()
	c := pgcluster.Start(t, pgcluster.Options{Standbys: 1, ApplyDelay: []time.Duration{time.Hour}})
	p, s := c.Primary(), c.Standby(1)
	p.Exec("", "CREATE TABLE pgcluster_probe (v int)")
	// The DDL is held back: after a while the standby still lacks it.
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		if scalar[bool](t, s.URL(""), "SELECT to_regclass('pgcluster_probe') IS NOT NULL") {
			t.Fatal("the delayed standby applied the table at once")
		}
	}
	s.Exec("postgres", "ALTER SYSTEM SET recovery_min_apply_delay = 0", "SELECT pg_reload_conf()")
	s.WaitReplay(30 * time.Second)
	if !scalar[bool](t, s.URL(""), "SELECT to_regclass('pgcluster_probe') IS NOT NULL") {
		t.Fatal("the table is missing after the delay was lifted")
	}
}
