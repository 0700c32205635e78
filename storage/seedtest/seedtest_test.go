package seedtest_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
)

// A clone holds what seeding a migrated database writes, row for row, and
// answers the Result seeding answers; each clone is a database of its own.
func TestCloneIsTheSeededDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	opts := seed.Options{Tenant: "acme", Scale: 1}
	first, res := seedtest.URL(t, opts)
	second, again := seedtest.URL(t, opts)
	if first == second || !reflect.DeepEqual(res, again) {
		t.Fatalf("two clones: %s and %s, results equal: %t", first, second, reflect.DeepEqual(res, again))
	}

	db, err := storage.Open(ctx, dbtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	want, err := seed.Run(ctx, db, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res, want) {
		t.Errorf("the clone's result\n%+v\nis not seeding's\n%+v", res, want)
	}

	conn, err := pgx.Connect(ctx, first)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for table, n := range want.Counts {
		var got int
		if err := conn.QueryRow(ctx, "SELECT count(*) FROM "+pgx.Identifier{table}.Sanitize()).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != n {
			t.Errorf("%s: %d rows in the clone, seeding wrote %d", table, got, n)
		}
	}
	if _, err := conn.Exec(ctx, "DELETE FROM statement_sub_lines"); err != nil {
		t.Fatal(err)
	}
	other, err := pgx.Connect(ctx, second)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close(ctx)
	var left int
	if err := other.QueryRow(ctx, "SELECT count(*) FROM statement_sub_lines").Scan(&left); err != nil || left != want.Counts["statement_sub_lines"] || left == 0 {
		t.Errorf("the other clone holds %d sub-lines (%v), want %d", left, err, want.Counts["statement_sub_lines"])
	}
}
