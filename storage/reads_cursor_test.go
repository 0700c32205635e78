package storage_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/readstest"
)

// A list query's cursor binds its parameters after the filters' ($N
// numbered as the text is assembled): walking a filtered list one cursor
// page at a time gives the rows of its single page, in the same order.
func TestCursorPagesAfterFilters(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := dbtest.New(t)
	f := readstest.NewTenant(t, db, "acme")
	r := &storage.Reads{DB: db}

	walk := func(page func(after string) ([]uuid.UUID, []string, bool, error)) []uuid.UUID {
		t.Helper()
		var all []uuid.UUID
		after := ""
		for range 10 {
			ids, cursors, more, err := page(after)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, ids...)
			if !more {
				return all
			}
			after = cursors[len(cursors)-1]
		}
		t.Fatal("more than 10 pages")
		return nil
	}
	same := func(what string, got, want []uuid.UUID) {
		t.Helper()
		if len(got) != len(want) || len(want) == 0 {
			t.Fatalf("%s: %d rows by cursor, %d in one page", what, len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("%s: row %d is %s by cursor, %s in one page", what, i, got[i], want[i])
			}
		}
	}

	active := []reads.LocationStatus{reads.LocationActive}
	after := readstest.Day0
	locations := func(w domain.Window) ([]uuid.UUID, []string, bool, error) {
		p, err := r.SearchLocations(ctx, f.Tenant, reads.LocationQuery{Statuses: active, CreatedAfter: &after, Window: w})
		var ids []uuid.UUID
		for _, l := range p.Items {
			ids = append(ids, l.ID)
		}
		return ids, p.Cursors, p.HasMore, err
	}
	one, _, _, err := locations(domain.Window{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	same("active locations", walk(func(c string) ([]uuid.UUID, []string, bool, error) {
		return locations(domain.Window{Limit: 1, After: c})
	}), one)

	users := func(w domain.Window) ([]uuid.UUID, []string, bool, error) {
		p, err := r.SearchUsers(ctx, f.Tenant, reads.UserQuery{Keyword: "user", Window: w})
		var ids []uuid.UUID
		for _, u := range p.Items {
			ids = append(ids, u.ID)
		}
		return ids, p.Cursors, p.HasMore, err
	}
	one, _, _, err = users(domain.Window{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	same("users by keyword", walk(func(c string) ([]uuid.UUID, []string, bool, error) {
		return users(domain.Window{Limit: 2, After: c})
	}), one)
}
