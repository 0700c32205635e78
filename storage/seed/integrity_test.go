package seed_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// TestSeedKeepsReferentialIntegrity checks every foreign key of the schema
// with one anti-join: seeding may copy without per-row trigger checks, so the
// generator's references must hold by themselves.
func TestSeedKeepsReferentialIntegrity(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	run(t, db, "acme", 1)
	ctx := context.Background()
	rows, err := db.Pool.Query(ctx, `
		SELECT c.conname, c.conrelid::regclass::text, c.confrelid::regclass::text,
		       array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i),
		       array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i)
		FROM pg_constraint c WHERE c.contype = 'f' AND c.connamespace = 'public'::regnamespace`)
	if err != nil {
		t.Fatal(err)
	}
	type fk struct {
		name, child, parent string
		cols, pcols         []string
	}
	var fks []fk
	for rows.Next() {
		var f fk
		if err := rows.Scan(&f.name, &f.child, &f.parent, &f.cols, &f.pcols); err != nil {
			t.Fatal(err)
		}
		fks = append(fks, f)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	if len(fks) < 20 {
		t.Fatalf("found only %d foreign keys", len(fks))
	}
	for _, f := range fks {
		var notNull, match []string
		for i, c := range f.cols {
			notNull = append(notNull, "c."+c+" IS NOT NULL")
			match = append(match, fmt.Sprintf("p.%s = c.%s", f.pcols[i], c))
		}
		q := fmt.Sprintf(`SELECT count(*) FROM %s c WHERE %s AND NOT EXISTS (SELECT 1 FROM %s p WHERE %s)`,
			f.child, strings.Join(notNull, " AND "), f.parent, strings.Join(match, " AND "))
		var dangling int
		if err := db.Pool.QueryRow(ctx, q).Scan(&dangling); err != nil {
			t.Fatalf("%s: %v", f.name, err)
		}
		if dangling != 0 {
			t.Errorf("%s: %d rows of %s reference no row of %s", f.name, dangling, f.child, f.parent)
		}
	}
}

// cancelOn cancels a context as soon as progress mentions word.
type cancelOn struct {
	mu     sync.Mutex
	word   []byte
	cancel context.CancelFunc
	seen   bool
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.seen && bytes.Contains(p, c.word) {
		c.seen = true
		c.cancel()
	}
	return len(p), nil
}

// TestSeedRemovesAPartialTenant interrupts seeding while statements are
// being copied (the concurrent part) and expects no row of the tenant left,
// so that the same slug can be seeded again.
func TestSeedRemovesAPartialTenant(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := &cancelOn{word: []byte("statements"), cancel: cancel}
	_, err := seed.Run(ctx, db, seed.Options{Tenant: "acme", Scale: 2, Progress: watch})
	if !watch.seen {
		t.Fatal("progress never mentioned statements")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted seed: got %v, want context.Canceled", err)
	}
	for _, table := range []string{"tenants", "subsidiaries", "drivers", "locations", "users", "loads", "stops", "trips",
		"invoices", "settlement_statements", "statement_line_items", "statement_sub_lines"} {
		var n int
		if err := db.Pool.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 0 {
			t.Errorf("%s keeps %d rows of the interrupted seed", table, n)
		}
	}
	res := run(t, db, "acme", 2)
	if res.Counts["settlement_statements"] != 2000 {
		t.Fatalf("reseed wrote %d statements", res.Counts["settlement_statements"])
	}
}

// TestSeedNeverSkipsAnotherAreasTrigger: when a table seeding writes has a
// trigger of its own, seeding must not copy in replica mode (which would
// skip it with the foreign-key checks): the trigger fires for every row.
func TestSeedNeverSkipsAnotherAreasTrigger(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	_, err := db.Pool.Exec(ctx, `
		CREATE TABLE seen_loads (load_id uuid PRIMARY KEY);
		CREATE FUNCTION note_load() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN INSERT INTO seen_loads VALUES (NEW.id); RETURN NULL; END $$;
		CREATE TRIGGER note_load AFTER INSERT ON loads FOR EACH ROW EXECUTE FUNCTION note_load();`)
	if err != nil {
		t.Fatal(err)
	}
	res := run(t, db, "acme", 1)
	var seen int
	if err := db.Pool.QueryRow(ctx, "SELECT count(*) FROM seen_loads").Scan(&seen); err != nil {
		t.Fatal(err)
	}
	if seen != res.Counts["loads"] {
		t.Fatalf("the loads trigger fired %d times for %d loads", seen, res.Counts["loads"])
	}
}
