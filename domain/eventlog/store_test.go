package eventlog_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// Resuming after an event the store does not hold for the tenant is
// CURSOR_EXPIRED, never a fresh start; a cursor sealed for another tenant is
// not a cursor at all (refused before any lookup).
func TestResumeOverTheStore(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	tenant := uuid.New()
	if _, err := db.Pool.Exec(ctx, `INSERT INTO tenants (id, slug, name) VALUES ($1, $2, 'T')`, tenant, "t-"+tenant.String()[:8]); err != nil {
		t.Fatal(err)
	}
	ctx = domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenant, ClientID: "c",
		Scopes: []domain.Scope{domain.ScopeLoadRead, domain.ScopeTripRead}})
	cursors := eventlog.NewCursors([]byte("0123456789abcdef0123456789abcdef"))
	log := &eventlog.Log{Store: &storage.EventLog{DB: db}, Cursors: cursors}

	page, err := log.List(ctx, eventlog.ListInput{})
	if err != nil || len(page.Items) != 0 {
		t.Fatalf("a new tenant's log: %d events, %v", len(page.Items), err)
	}
	unknown := uuid.NewString() + "-0"
	if _, err := log.List(ctx, eventlog.ListInput{After: &unknown}); domain.CodeOf(err) != eventlog.CodeCursorExpired {
		t.Errorf("after an event never stored: %v, want %s", err, eventlog.CodeCursorExpired)
	}
	foreign := cursors.Seal(uuid.New(), eventlog.Position{Xact: 1, Seq: 1})
	if _, err := log.List(ctx, eventlog.ListInput{After: &foreign}); domain.CodeOf(err) != domain.CodeInvalid {
		t.Errorf("after another tenant's cursor: %v, want %s", err, domain.CodeInvalid)
	}
}
