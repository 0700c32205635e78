package release

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMigrationsExpandOnly: the migrations added since the previous
// release only expand the schema (or say, with a contract: marker, why
// what they remove is unused by that release), and none the previous
// release had is edited: databases have applied it already.
func TestMigrationsExpandOnly(t *testing.T) {
	t.Parallel()
	root, prev := previous(t)
	const dir = "storage/migrations/"
	released := map[string]bool{}
	for _, name := range strings.Fields(git(t, root, "ls-tree", "--name-only", prev.Commit, dir)) {
		released[strings.TrimPrefix(name, dir)] = true
	}
	if len(released) == 0 {
		t.Fatalf("release %s has no %s: wrong commit?", prev.Version, dir)
	}
	files, err := filepath.Glob(filepath.Join(root, dir, "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	var current []string
	for _, f := range files {
		name := filepath.Base(f)
		current = append(current, name)
		body, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if released[name] {
			if was := git(t, root, "show", prev.Commit+":"+dir+name); was != string(body) {
				t.Errorf("%s%s was released in %s and is edited since: databases applied it already; add a new migration instead", dir, name, prev.Version)
			}
			continue
		}
		for _, st := range Contracting(string(body)) {
			t.Errorf("%s%s (new since %s) contracts the schema while %s may still run against it:\n\t%s\n"+
				"split it: expand now, contract in a later release, marked -- %s <why %s no longer uses it>",
				dir, name, prev.Version, prev.Version, st, ContractMarker, prev.Version)
		}
	}
	for name := range released {
		if !slices.Contains(current, name) {
			t.Errorf("%s%s, released in %s, is gone: databases recorded it", dir, name, prev.Version)
		}
	}
}

// TestContracting: what the expand/contract check refuses and lets pass.
func TestContracting(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		sql  string
		want int
	}{
		{"CREATE TABLE t (id uuid PRIMARY KEY, name text NOT NULL);", 0},
		{"ALTER TABLE t ADD COLUMN note text;", 0},
		{"ALTER TABLE t ADD COLUMN n int NOT NULL DEFAULT 0;", 0},
		{"ALTER TABLE t ADD COLUMN IF NOT EXISTS n int DEFAULT 0 NOT NULL;", 0},
		{"CREATE INDEX t_name ON t (name);", 0},
		{"-- the DROP in a comment\nCREATE TABLE u (x int);", 0},
		{"CREATE FUNCTION f() RETURNS void AS $$ BEGIN EXECUTE 'DROP TABLE x'; END $$ LANGUAGE plpgsql;", 0},
		{"INSERT INTO t (name) VALUES ('DROP TABLE t; RENAME');", 0},
		{"ALTER TABLE t ADD COLUMN n int NOT NULL;", 1},
		{"ALTER TABLE t DROP COLUMN name;", 1},
		{"DROP TABLE t;", 1},
		{"DROP INDEX t_name;", 1},
		{"ALTER TABLE t RENAME COLUMN name TO title;", 1},
		{"ALTER TABLE t ALTER COLUMN name TYPE varchar(10);", 1},
		{"ALTER TABLE t ALTER name SET DATA TYPE varchar(10);", 1},
		{"ALTER TABLE t ALTER COLUMN note SET NOT NULL;", 1},
		{"CREATE TABLE a (x int); DROP TABLE b; ALTER TABLE c RENAME TO d;", 2},
		{"-- contract: v0.28.0 reads no column note (since v0.27.0)\nALTER TABLE t DROP COLUMN note;", 0},
		{"ALTER TABLE t /* contract: unused since v0.27.0 */ DROP COLUMN note; DROP TABLE old;", 1},
	} {
		if got := Contracting(c.sql); len(got) != c.want {
			t.Errorf("Contracting(%q) = %q, want %d statements", c.sql, got, c.want)
		}
	}
}
