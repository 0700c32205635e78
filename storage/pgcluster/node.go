package pgcluster

// A node's life once the cluster stands: its URL, start and stop, promotion,
// replay and the statements a test sends it.

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
)

// URL is the node's connection URL for database db ("" means Database).
func (n *Node) URL(db string) string {
	if db == "" {
		db = Database
	}
	return "postgres://postgres@/" + db + "?host=" + n.sock + "&sslmode=disable"
}

// Running reports whether the node was last started rather than stopped.
func (n *Node) Running() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.running
}

// Start starts a stopped node again (a standby resumes streaming).
func (n *Node) Start() {
	n.c.t.Helper()
	if err := n.start(); err != nil {
		n.c.t.Fatalf("pgcluster: start %s: %v", n.Name, err)
	}
}

func (n *Node) start() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if out, err := n.c.asPostgres(filepath.Join(n.c.bindir, "pg_ctl"), "-D", n.data, "-l", n.log, "-w", "-t", "60", "start"); err != nil {
		return fmt.Errorf("pg_ctl start: %v: %s\n%s", err, out, tail(n.log))
	}
	n.running = true
	return nil
}

// Stop stops the node at once (immediate mode: no checkpoint, connections
// cut), as when its machine is lost.
func (n *Node) Stop() {
	n.c.t.Helper()
	if err := n.stop("immediate"); err != nil {
		n.c.t.Fatalf("pgcluster: stop %s: %v", n.Name, err)
	}
}

func (n *Node) stop(mode string) error {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.running {
		return nil
	}
	if out, err := n.c.asPostgres(filepath.Join(n.c.bindir, "pg_ctl"), "-D", n.data, "-m", mode, "-w", "-t", "60", "stop"); err != nil {
		return fmt.Errorf("pg_ctl stop: %v: %s", err, out)
	}
	n.running = false
	return nil
}

// Promote turns a standby into the primary (pg_ctl promote) and returns once
// it accepts writes (pg_is_in_recovery() is false).
func (n *Node) Promote() {
	t := n.c.t
	t.Helper()
	if out, err := n.c.asPostgres(filepath.Join(n.c.bindir, "pg_ctl"), "-D", n.data, "-w", "-t", "60", "promote"); err != nil {
		t.Fatalf("pgcluster: promote %s: %v: %s", n.Name, err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		var recovering bool
		err := n.queryRow(ctx, "SELECT pg_is_in_recovery()", &recovering)
		if err == nil && !recovering {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("pgcluster: promote %s: still in recovery (%v)", n.Name, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	n.c.mu.Lock()
	n.c.primary = n
	n.c.mu.Unlock()
}

// WaitReplay returns once this standby has replayed everything the primary
// had written when it was called (pg_current_wal_lsn() there against
// pg_last_wal_replay_lsn() here), failing the test after timeout.
func (n *Node) WaitReplay(timeout time.Duration) {
	t := n.c.t
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var target string
	if err := n.c.Primary().queryRow(ctx, "SELECT pg_current_wal_lsn()::text", &target); err != nil {
		t.Fatalf("pgcluster: primary LSN: %v", err)
	}
	for {
		var reached bool
		err := n.queryRow(ctx, "SELECT coalesce(pg_last_wal_replay_lsn() >= $1::pg_lsn, false)", &reached, target)
		if err == nil && reached {
			return
		}
		if ctx.Err() != nil {
			t.Fatalf("pgcluster: %s has not replayed %s within %v (%v)", n.Name, target, timeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Exec runs statements on the node's database db ("" means Database), each
// on its own, failing the test on an error.
func (n *Node) Exec(db string, statements ...string) {
	n.c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := n.exec(ctx, db, statements...); err != nil {
		n.c.t.Fatalf("pgcluster: %s: %v", n.Name, err)
	}
}

func (n *Node) exec(ctx context.Context, db string, statements ...string) error {
	conn, err := pgx.Connect(ctx, n.URL(db))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	for _, s := range statements {
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("%s: %w", s, err)
		}
	}
	return nil
}

func (n *Node) queryRow(ctx context.Context, sql string, dest any, args ...any) error {
	conn, err := pgx.Connect(ctx, n.URL(""))
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	return conn.QueryRow(ctx, sql, args...).Scan(dest)
}
