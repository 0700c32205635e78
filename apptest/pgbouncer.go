package apptest

import (
	"bufio"
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// PgBouncer is a real PgBouncer in transaction mode in front of one
// database (scripts/with-pgbouncer.sh), running until the test ends.
type PgBouncer struct {
	URL   string // the database through PgBouncer
	Admin string // PgBouncer's admin console
}

// StartPgBouncer puts a PgBouncer with poolSize server connections per
// database and user in front of direct (a database on with-pg.sh's
// cluster). Call it before Start, so that the instance stops first.
func StartPgBouncer(t testing.TB, direct string, poolSize int) PgBouncer {
	t.Helper()
	// The script runs a command that prints the URLs and waits for its
	// stdin to close; the script then stops PgBouncer.
	cmd := exec.Command(filepath.Join(RepoRoot(t), "scripts", "with-pgbouncer.sh"), "sh", "-c",
		`printf '%s\n%s\n' "$DATABASE_URL" "$HAULGRAPH_PGBOUNCER_ADMIN_URL"; exec cat >/dev/null`)
	cmd.Env = append(os.Environ(), "DATABASE_URL="+direct, "HAULGRAPH_PGBOUNCER_POOL_SIZE="+strconv.Itoa(poolSize))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("apptest: with-pgbouncer.sh: %v", err)
	}
	var dir string
	t.Cleanup(func() {
		_ = stdin.Close()
		if err := cmd.Wait(); err != nil {
			t.Errorf("apptest: with-pgbouncer.sh: %v: %s", err, stderr.String())
		}
		// The script stops PgBouncer and removes its directory.
		if _, err := os.Stat(dir); dir != "" && !os.IsNotExist(err) {
			t.Errorf("apptest: with-pgbouncer.sh left %s behind (%v)", dir, err)
		}
	})
	out := bufio.NewReader(stdout)
	var urls [2]string
	for i := range urls {
		line, err := out.ReadString('\n')
		if err != nil {
			_ = stdin.Close()
			t.Fatalf("apptest: PgBouncer did not start: %v: %s", err, stderr.String())
		}
		urls[i] = strings.TrimSpace(line)
	}
	if u, err := url.Parse(urls[0]); err == nil {
		dir = u.Query().Get("host")
	}
	return PgBouncer{URL: urls[0], Admin: urls[1]}
}

// Show runs SHOW what on the admin console and returns the rows of
// database db, each column as text.
func (p PgBouncer) Show(t testing.TB, what, db string) []map[string]string {
	t.Helper()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, p.Admin)
	if err != nil {
		t.Fatalf("apptest: PgBouncer's console: %v", err)
	}
	defer c.Close(ctx)
	rows, err := c.Query(ctx, "SHOW "+what)
	if err != nil {
		t.Fatalf("apptest: SHOW %s: %v", what, err)
	}
	var out []map[string]string
	for rows.Next() {
		// The console answers in text (simple protocol): the raw values are it.
		raw := rows.RawValues()
		row := map[string]string{}
		for i, f := range rows.FieldDescriptions() {
			row[f.Name] = string(raw[i])
		}
		if row["database"] == db {
			out = append(out, row)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("apptest: SHOW %s: %v", what, err)
	}
	return out
}
