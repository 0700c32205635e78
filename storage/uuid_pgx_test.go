package storage_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// TestUUIDsTravelAsUUIDs: ids go to PostgreSQL and come back as uuid.UUID —
// one, an array, a NULL into a pointer — and a NULL into a plain UUID is an
// error, not the zero id.
func TestUUIDsTravelAsUUIDs(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	a, b := uuid.New(), uuid.New()
	var one uuid.UUID
	var none *uuid.UUID
	var many []uuid.UUID
	var text string
	err := db.Pool.QueryRow(ctx, "SELECT $1::uuid, NULL::uuid, $2::uuid[], $1::uuid::text", a, []uuid.UUID{a, b}).
		Scan(&one, &none, &many, &text)
	if err != nil {
		t.Fatal(err)
	}
	if one != a || none != nil || len(many) != 2 || many[0] != a || many[1] != b || text != a.String() {
		t.Fatalf("read %v, %v, %v, %q; sent %v and [%v %v]", one, none, many, text, a, a, b)
	}
	if err := db.Pool.QueryRow(ctx, "SELECT NULL::uuid").Scan(&one); err == nil {
		t.Fatal("a NULL id was scanned into a uuid.UUID without an error")
	}
}
