// Package pgcluster starts PostgreSQL clusters of a test's own on this
// machine: a primary and N streaming standbys cloned from it with
// pg_basebackup -R, each its own data directory and Unix socket directory
// (listen_addresses empty), all under a fresh directory of the scratch home
// (scratchHome: /var/tmp, or scripts/with-pg.sh's in-memory home) that the
// postgres user owns (the server refuses to run as root, so as root every
// binary runs as postgres through runuser, as scripts/with-pg.sh does).
//
// The primary carries the database "haulgraph", migrated before the standbys
// are cloned, so every node has HaulGraph's schema and roles from the start
// (the primary starts from a copy of a migrated template data directory,
// kept in the scratch home per server version and migration set).
// Everything is stopped and removed when the test ends.
package pgcluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/storage"
)

// Database is the migrated database every node carries.
const Database = "haulgraph"

// Options shape a cluster.
type Options struct {
	// Standbys is the number of streaming standbys (0: a primary alone).
	Standbys int
	// Synchronous makes the primary wait for a standby on every commit
	// (synchronous_commit = on, synchronous_standby_names = 'FIRST 1 (…)'
	// listing the standbys in order, so standby 1 is the synchronous one
	// while it is connected).
	Synchronous bool
	// SynchronousStandbyNames, when set, replaces the FIRST 1 list above
	// (the standbys' application names are "standby1", "standby2", …).
	SynchronousStandbyNames string
	// ApplyDelay is each standby's recovery_min_apply_delay (index 0 is
	// standby 1); missing entries mean no delay.
	ApplyDelay []time.Duration
}

// Cluster is a running primary with its standbys.
type Cluster struct {
	t      testing.TB
	bindir string
	dir    string
	// Nodes are the primary (index 0, "primary") then the standbys in
	// order ("standby1", …); a promotion does not reorder them.
	Nodes []*Node

	mu      sync.Mutex
	primary *Node
}

// Node is one PostgreSQL server of the cluster.
type Node struct {
	c *Cluster
	// Name is the node's application name ("primary", "standby1", …).
	Name string
	data string
	sock string
	log  string

	mu      sync.Mutex
	running bool
}

// Start creates, migrates and starts a cluster; it is stopped and removed
// when the test ends. A test that cannot find or run PostgreSQL fails.
func Start(t testing.TB, opts Options) *Cluster {
	t.Helper()
	bindir, err := findBindir()
	if err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
	dir, err := os.MkdirTemp(scratchHome(), "hg-pgcluster-")
	if err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
	c := &Cluster{t: t, bindir: bindir, dir: dir}
	t.Cleanup(c.cleanup)
	if err := chownPostgres(dir); err != nil {
		t.Fatalf("pgcluster: %v", err)
	}

	tmpl, err := templateData(bindir)
	if err != nil {
		t.Fatalf("pgcluster: template: %v", err)
	}
	primary, err := c.newNode("primary")
	if err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
	c.primary = primary
	if err := c.copyPrimary(primary, tmpl); err != nil {
		t.Fatalf("pgcluster: primary: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for i := 1; i <= opts.Standbys; i++ {
		var delay time.Duration
		if i-1 < len(opts.ApplyDelay) {
			delay = opts.ApplyDelay[i-1]
		}
		n, err := c.newNode("standby" + strconv.Itoa(i))
		if err != nil {
			t.Fatalf("pgcluster: %v", err)
		}
		if err := c.cloneStandby(n, primary, delay); err != nil {
			t.Fatalf("pgcluster: %s: %v", n.Name, err)
		}
	}
	if opts.Synchronous || opts.SynchronousStandbyNames != "" {
		names := opts.SynchronousStandbyNames
		if names == "" {
			var list []string
			for _, n := range c.Nodes[1:] {
				list = append(list, n.Name)
			}
			names = "FIRST 1 (" + strings.Join(list, ", ") + ")"
		}
		// Set only now: with it set while no standby exists, the
		// migrations' commits would wait for ever.
		if err := primary.exec(ctx, "postgres",
			"ALTER SYSTEM SET synchronous_standby_names = "+quote(names),
			"ALTER SYSTEM SET synchronous_commit = 'on'",
			"SELECT pg_reload_conf()"); err != nil {
			t.Fatalf("pgcluster: synchronous: %v", err)
		}
	}
	if err := primary.waitStreaming(ctx, opts.Standbys, opts.Synchronous || opts.SynchronousStandbyNames != ""); err != nil {
		t.Fatalf("pgcluster: %v", err)
	}
	return c
}

// waitStreaming returns once n standbys stream from the primary and, when
// sync is set, one of them is synchronous (a reload takes effect a little
// after pg_reload_conf returns).
func (n *Node) waitStreaming(ctx context.Context, standbys int, sync bool) error {
	want := "SELECT count(*) FILTER (WHERE state = 'streaming') >= $1 AND (NOT $2 OR bool_or(sync_state IN ('sync', 'quorum'))) FROM pg_stat_replication"
	for {
		var ok *bool
		err := n.queryRow(ctx, want, &ok, standbys, sync)
		if err == nil && (ok != nil && *ok || standbys == 0) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("standbys not streaming (synchronous: %v): %v", sync, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// tmpl is the migrated primary's data directory that every cluster starts
// from: copying it is far quicker than initdb and the migrations. Like
// storage/dbtest's template database it is shared by later test processes
// while the migrations and the server version stay the same.
var tmpl struct {
	once sync.Once
	data string
	err  error
}

// scratchHome is where clusters and the template live: HAULGRAPH_PG_SCRATCH
// (scripts/with-pg.sh sets it to its cluster's home when that is in memory:
// copying data directories creates thousands of files, cheap only there),
// else /var/tmp, which the postgres user can reach from any checkout.
func scratchHome() string {
	if dir := os.Getenv("HAULGRAPH_PG_SCRATCH"); dir != "" {
		return dir
	}
	return "/var/tmp"
}

func templateData(bindir string) (string, error) {
	tmpl.once.Do(func() { tmpl.data, tmpl.err = buildTemplate(bindir) })
	return tmpl.data, tmpl.err
}

func buildTemplate(bindir string) (string, error) {
	final := filepath.Join(scratchHome(), "hg-pgcluster-template-w1-"+filepath.Base(filepath.Dir(bindir))+"-"+storage.MigrationsDigest()[:16])
	data := filepath.Join(final, "primary", "data")
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err == nil {
		return data, nil
	}
	build, err := os.MkdirTemp(scratchHome(), "hg-pgcluster-build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(build) // gone once renamed
	if err := chownPostgres(build); err != nil {
		return "", err
	}
	c := &Cluster{bindir: bindir, dir: build}
	n, err := c.newNode("primary")
	if err != nil {
		return "", err
	}
	if err := c.initPrimary(n); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err = createAndMigrate(ctx, n)
	if stopErr := n.stop("fast"); err == nil {
		err = stopErr
	}
	if err != nil {
		return "", err
	}
	// Complete or absent: another process may have won the race.
	if err := os.Rename(build, final); err != nil {
		if _, statErr := os.Stat(filepath.Join(data, "PG_VERSION")); statErr != nil {
			return "", err
		}
	}
	return data, nil
}

// copyPrimary starts n from a copy of the template's data directory.
func (c *Cluster) copyPrimary(n *Node, tmplData string) error {
	if out, err := exec.Command("cp", "-a", tmplData, n.data).CombinedOutput(); err != nil {
		return fmt.Errorf("copy the template: %v: %s", err, out)
	}
	if err := n.appendConf(n.settings()); err != nil {
		return err
	}
	return n.start()
}

// Primary is the node that currently takes writes (node 0 until a Promote).
func (c *Cluster) Primary() *Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.primary
}

// Standby returns standby i (1-based).
func (c *Cluster) Standby(i int) *Node { return c.Nodes[i] }

func (c *Cluster) newNode(name string) (*Node, error) {
	base := filepath.Join(c.dir, name)
	n := &Node{c: c, Name: name, data: filepath.Join(base, "data"), sock: filepath.Join(base, "run"), log: filepath.Join(base, "postgres.log")}
	for _, d := range []string{base, n.sock} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
		if err := chownPostgres(d); err != nil {
			return nil, err
		}
	}
	c.Nodes = append(c.Nodes, n)
	return n, nil
}

// settings every node shares: fast and small (test data only), and what
// streaming replication and a later promotion need.
func (n *Node) settings() string {
	return fmt.Sprintf(`
listen_addresses = ''
unix_socket_directories = '%s'
max_connections = 200
shared_buffers = 16MB
fsync = off
full_page_writes = off
wal_level = replica
max_wal_senders = 10
max_replication_slots = 10
wal_keep_size = 256MB
min_wal_size = 2MB
max_wal_size = 64MB
hot_standby = on
hot_standby_feedback = on
wal_receiver_status_interval = 1s
log_min_messages = warning
`, n.sock)
}

// initPrimary makes a new cluster, with 1 MB WAL segments: less to copy
// into every clone than the default 16 MB.
func (c *Cluster) initPrimary(n *Node) error {
	if out, err := c.asPostgres(filepath.Join(c.bindir, "initdb"), "-D", n.data, "-U", "postgres",
		"--auth=trust", "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync", "--wal-segsize=1"); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, out)
	}
	if err := n.appendConf(n.settings()); err != nil {
		return err
	}
	return n.start()
}

func (c *Cluster) cloneStandby(n, from *Node, delay time.Duration) error {
	if out, err := c.asPostgres(filepath.Join(c.bindir, "pg_basebackup"), "-D", n.data,
		"-d", fmt.Sprintf("host=%s user=postgres application_name=%s", from.sock, n.Name),
		"-R", "-X", "stream", "-c", "fast", "--no-sync"); err != nil {
		return fmt.Errorf("pg_basebackup: %v: %s", err, out)
	}
	// The copied postgresql.conf names the primary's socket: the later
	// lines win. primary_conninfo goes after -R's own in auto.conf.
	if err := n.appendConf(n.settings() + fmt.Sprintf("recovery_min_apply_delay = '%dms'\n", delay.Milliseconds())); err != nil {
		return err
	}
	if err := n.setPrimaryConninfo(from); err != nil {
		return err
	}
	return n.start()
}

func (n *Node) setPrimaryConninfo(from *Node) error {
	f, err := os.OpenFile(filepath.Join(n.data, "postgresql.auto.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = fmt.Fprintf(f, "primary_conninfo = 'host=%s user=postgres application_name=%s'\n", from.sock, n.Name)
	return err
}

func (n *Node) appendConf(s string) error {
	f, err := os.OpenFile(filepath.Join(n.data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(s)
	return err
}

func createAndMigrate(ctx context.Context, n *Node) error {
	if err := n.exec(ctx, "postgres", "CREATE DATABASE "+Database); err != nil {
		return err
	}
	db, err := storage.Open(ctx, n.URL(""))
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Migrate(ctx)
}

func (c *Cluster) cleanup() {
	// Standbys first, so that none waits on a primary already gone.
	for i := len(c.Nodes) - 1; i >= 0; i-- {
		if err := c.Nodes[i].stop("immediate"); err != nil {
			c.t.Logf("pgcluster: %v", err)
		}
	}
	if err := os.RemoveAll(c.dir); err != nil {
		c.t.Logf("pgcluster: %v", err)
	}
}

// asPostgres runs a server binary, as the postgres user when we are root.
func (c *Cluster) asPostgres(bin string, args ...string) ([]byte, error) {
	var cmd *exec.Cmd
	if os.Geteuid() == 0 {
		cmd = exec.Command("runuser", append([]string{"-u", "postgres", "--", bin}, args...)...)
	} else {
		cmd = exec.Command(bin, args...)
	}
	cmd.Dir = "/"
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	return out.Bytes(), err
}

func chownPostgres(path string) error {
	if os.Geteuid() != 0 {
		return nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return fmt.Errorf("the postgres user: %w (install PostgreSQL: apt-get install postgresql)", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	if err := os.Chown(path, uid, gid); err != nil {
		return err
	}
	return os.Chmod(path, 0o700)
}

// findBindir finds the server binaries as scripts/with-pg.sh does.
func findBindir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		d := strings.TrimSpace(string(out))
		if isExec(filepath.Join(d, "initdb")) {
			return d, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return version(dirs[i]) > version(dirs[j]) })
	for _, d := range dirs {
		if isExec(filepath.Join(d, "initdb")) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", fmt.Errorf("PostgreSQL server binaries not found (Debian: apt-get install postgresql)")
}

func version(bindir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(bindir)))
	return v
}

func isExec(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode()&0o111 != 0
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
