package loads_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// The transition rule holds through the store: a status the table does not
// allow next is refused and the stored load keeps its status; an allowed one
// is saved.
func TestStatusTransitionsOverTheStore(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	tenant, sub := uuid.New(), uuid.New()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO tenants (id, slug, name) VALUES ($1, $2, 'T')`, tenant, "t-"+tenant.String()[:8]); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Pool.Exec(ctx, `INSERT INTO subsidiaries (id, tenant_id, name) VALUES ($1, $2, 'North')`, sub, tenant); err != nil {
		t.Fatal(err)
	}
	ctx = domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenant, ClientID: "c",
		Scopes: []domain.Scope{domain.ScopeLoadCreate, domain.ScopeLoadUpdate}})
	svc := &loads.Writes{Store: &storage.LoadWrites{DB: db}}
	l, err := svc.CreateLoad(ctx, loads.Input{LoadNumber: "T-1", SubsidiaryID: sub.String(),
		Stops: []loads.StopInput{{Type: "Pickup", Name: "Mill"}}})
	if err != nil {
		t.Fatal(err)
	}
	next := loads.NextStatuses(l.Status)
	i := slices.IndexFunc(domain.LoadStatuses, func(s domain.LoadStatus) bool { return s != l.Status && !slices.Contains(next, s) })
	if len(next) == 0 || i < 0 {
		t.Fatalf("%s: next %v leaves nothing to refuse or allow", l.Status, next)
	}
	refused := domain.LoadStatuses[i]
	if _, err := svc.ChangeLoadStatus(ctx, "T-1", string(refused)); domain.CodeOf(err) != domain.CodeInvalid {
		t.Fatalf("%s -> %s: %v, want %s", l.Status, refused, err, domain.CodeInvalid)
	}
	if got := storedStatus(t, db, l.ID); got != string(l.Status) {
		t.Fatalf("after a refused change the load is %s, want %s", got, l.Status)
	}
	changed, err := svc.ChangeLoadStatus(ctx, "T-1", string(next[0]))
	if err != nil {
		t.Fatalf("%s -> %s: %v", l.Status, next[0], err)
	}
	if changed.Status != next[0] || storedStatus(t, db, l.ID) != string(next[0]) {
		t.Fatalf("answered %s, stored %s, want %s", changed.Status, storedStatus(t, db, l.ID), next[0])
	}
}

func storedStatus(t *testing.T, db *storage.DB, id uuid.UUID) string {
	t.Helper()
	var s string
	if err := db.Pool.QueryRow(context.Background(), `SELECT status FROM loads WHERE id = $1`, id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}
