package storage_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// Every writer's write of a table bumps its tenant's version of the table's
// resource when it commits, once per transaction, and nothing else's: not
// another resource's, not another tenant's; a rolled-back write bumps
// nothing; TRUNCATE bumps every tenant's.
func TestResponseVersionsFollowWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	v := &storage.ResponseVersions{DB: db}
	a, b := uuid.New(), uuid.New()
	for _, id := range []uuid.UUID{a, b} {
		if _, err := db.Pool.Exec(ctx, "INSERT INTO tenants (id, slug, name) VALUES ($1, $2, 'T')", id, id.String()[:8]); err != nil {
			t.Fatal(err)
		}
	}
	versions := func(tenant uuid.UUID) domain.Versions {
		t.Helper()
		got, err := v.Versions(ctx, tenant)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	// bumps counts the committed bumps of users for tenant (the counters
	// behind the fingerprint).
	bumps := func(tenant uuid.UUID) int64 {
		t.Helper()
		var n int64
		if err := db.Pool.QueryRow(ctx, "SELECT coalesce(sum(users), 0)::bigint FROM response_versions WHERE tenant_id = $1", tenant).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	user := "INSERT INTO users (id, tenant_id, user_name, name, user_type, role, status, created_at, modified_at) VALUES (gen_random_uuid(), $1, $2, 'N', 'Employee', 'Admin', 'Active', now(), now())"
	step := func(name string, want int64, sql ...string) {
		t.Helper()
		beforeA, beforeB := versions(a), versions(b)
		tx, err := db.Pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n := bumps(a)
		for i, s := range sql {
			args := []any{}
			if s == user {
				args = []any{a, name + string(rune('a'+i))}
			}
			if _, err := tx.Exec(ctx, s, args...); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		if got := versions(a); got != beforeA {
			t.Errorf("%s: versions changed before the commit", name)
		}
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
		after := versions(a)
		if got := bumps(a) - n; got != want {
			t.Errorf("%s: %d bumps, want %d", name, got, want)
		}
		for r := domain.Resource(0); r < domain.NumResources; r++ {
			if changed := after[r] != beforeA[r]; changed != (r == domain.ResourceUsers && want > 0) {
				t.Errorf("%s: %s changed %t", name, domain.ResourceNames[r], changed)
			}
		}
		if versions(b) != beforeB {
			t.Errorf("%s: the other tenant's versions changed", name)
		}
	}
	step("insert", 1, user)
	step("three statements, one transaction", 1, user, user, "UPDATE users SET name = name || '.' WHERE tenant_id = '"+a.String()+"'")
	step("delete", 1, "DELETE FROM users WHERE tenant_id = '"+a.String()+"' AND user_name = 'inserta'")

	before := versions(a)
	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, user, a, "rolled back"); err != nil {
		t.Fatal(err)
	}
	_ = tx.Rollback(ctx)
	if versions(a) != before {
		t.Error("a rolled-back write bumped the version")
	}

	beforeB := versions(b)
	if _, err := db.Pool.Exec(ctx, "TRUNCATE users"); err != nil {
		t.Fatal(err)
	}
	if versions(a)[domain.ResourceUsers] == before[domain.ResourceUsers] || versions(b)[domain.ResourceUsers] == beforeB[domain.ResourceUsers] {
		t.Error("TRUNCATE left a tenant's version of users unchanged")
	}
}
