package rest_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// A page never passes an event that commits later at a lower position: an
// event written by a transaction still open holds the later ones back, and
// once it commits a client continuing from its last event gets both, in
// outbox order.
func TestEventsAPINeverSkipsALateCommit(t *testing.T) {
	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	reader := srv.Token(t, acme, domain.ScopeLoadRead)
	insert := func(ctx context.Context, exec func(ctx context.Context, sql string, args ...any) error) string {
		id := uuid.NewString() + "-0"
		payload := loadChangedEnvelope(t, id, acme.SubsidiaryID)
		if err := exec(ctx, "INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload) VALUES ($1, $2, $3, 'load.changed', $4, $5)",
			id, acme.ID, acme.SubsidiaryID, uuid.New(), payload); err != nil {
			t.Fatal(err)
		}
		return id
	}
	pool := func(ctx context.Context, sql string, args ...any) error {
		_, err := srv.DB.Pool.Exec(ctx, sql, args...)
		return err
	}
	ctx := context.Background()
	first := insert(ctx, pool)
	waitFinal(t, srv)

	late, err := srv.DB.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer late.Rollback(ctx) //nolint:errcheck
	lateID := insert(ctx, func(ctx context.Context, sql string, args ...any) error {
		_, err := late.Exec(ctx, sql, args...)
		return err
	})
	after := insert(ctx, pool) // committed, but after the open transaction began

	get := func(query string) []string {
		res, body := testkit.Request(t, "GET", srv.URL+"/api/p/v1/events"+query, map[string]string{"Authorization": "Bearer " + reader}, "")
		return ids(t, list(t, res, body))
	}
	if got := get(""); !slices.Equal(got, []string{first}) {
		t.Fatalf("with a transaction open: %v, want only %s", got, first)
	}
	if err := late.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	waitFinal(t, srv)
	if got := get("?after=" + first); !slices.Equal(got, []string{lateID, after}) {
		t.Fatalf("after %s: %v, want %s then %s", first, got, lateID, after)
	}
}
