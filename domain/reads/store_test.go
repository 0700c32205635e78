package reads_test

import (
	"context"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/readstest"
)

// A visible statement is Processed or Failed (reads.VisibleStatementStatuses),
// through the store: the seeded Generating (#6) and Draft (#7) statements are
// not found and not counted, the Failed (#5) and Processed ones are.
func TestOnlyVisibleStatementsOverTheStore(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	f := readstest.NewTenant(t, db, "visible")
	ctx := domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: f.Tenant, ClientID: "c",
		Scopes: []domain.Scope{domain.ScopeDriverRead}})
	svc := &reads.Service{Store: &storage.Reads{DB: db}}
	for number, visible := range map[int32]bool{1: true, 5: true, 6: false, 7: false} {
		s, err := svc.Statement(ctx, number)
		switch {
		case visible && err != nil:
			t.Errorf("statement %d: %v", number, err)
		case visible && s.Status != reads.StatementProcessed && s.Status != reads.StatementFailed:
			t.Errorf("statement %d shown as %s", number, s.Status)
		case !visible && domain.CodeOf(err) != domain.CodeNotFound:
			t.Errorf("statement %d: %v, want %s", number, err, domain.CodeNotFound)
		}
	}
	page, err := svc.SearchStatements(ctx, reads.StatementSearchInput{Page: new(0), PageSize: new(100),
		StatementDateRange: &reads.DateRangeInput{Start: new(readstest.Day0), End: new(readstest.Day0.AddDate(0, 0, 60))}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 28 {
		t.Errorf("search found %d statements, want the 28 visible of 30", len(page.Items))
	}
	for _, s := range page.Items {
		if s.Status != reads.StatementProcessed && s.Status != reads.StatementFailed {
			t.Errorf("search shows statement %d as %s", s.Number, s.Status)
		}
	}
}
