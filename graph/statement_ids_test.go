package graph_test

import (
	"context"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/readstest"
)

// A settlement statement's id is its stored id: the same in the list, the
// single read and every later request, one per statement, and another
// tenant's statement of the same number has another id.
func TestSettlementStatementIDs(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	ta := apptest.NewTenant(t, srv, "acme")
	tb := apptest.NewTenant(t, srv, "globex")
	readstest.Seed(t, srv.DB, ta.ID, ta.SubsidiaryID, ta.Slug, 10)
	readstest.Seed(t, srv.DB, tb.ID, tb.SubsidiaryID, tb.Slug, 10)

	stored := func(tenant uuid.UUID) map[int32]string {
		out := map[int32]string{}
		var rows []struct {
			ID     uuid.UUID `bun:"id"`
			Number int32     `bun:"number"`
		}
		if err := srv.DB.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
			return tx.NewSelect().Table("settlement_statements").Column("id", "number").
				Where("tenant_id = ?", tenant).Scan(ctx, &rows)
		}); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			out[r.Number] = r.ID.String()
		}
		return out
	}
	token := func(tenant apptest.Tenant) string {
		id, secret := srv.Client(t, tenant, domain.ScopeDriverRead)
		tok, err := srv.OAuth(id, secret).Token(context.Background())
		if err != nil {
			t.Fatalf("token: %v", err)
		}
		return tok.AccessToken
	}
	type stmt struct {
		ID     string `json:"id"`
		Number int32  `json:"number"`
	}
	list := func(tok string) []stmt {
		out := gql(t, srv.URL, tok, `query($f: StatementFilter!) { settlementStatements(filter: $f, first: 100) {
			items { id number } edges { node { id number } } } }`,
			map[string]any{"f": dateRange("2025-01-01T00:00:00Z", "2025-12-31T00:00:00Z")})
		var c struct {
			Items []stmt
			Edges []struct{ Node stmt }
		}
		out.Field(t, "settlementStatements", &c)
		if len(c.Items) == 0 || len(c.Edges) != len(c.Items) {
			t.Fatalf("%d items, %d edges: %+v", len(c.Items), len(c.Edges), out)
		}
		for i, e := range c.Edges {
			if e.Node != c.Items[i] {
				t.Errorf("edge %d %+v, item %+v", i, e.Node, c.Items[i])
			}
		}
		return c.Items
	}

	tokA, tokB := token(ta), token(tb)
	storedA, storedB := stored(ta.ID), stored(tb.ID)
	first, again := list(tokA), list(tokA)
	if len(first) != len(again) {
		t.Fatalf("%d statements, then %d", len(first), len(again))
	}
	seen := map[string]bool{}
	for i, s := range first {
		if s.ID != storedA[s.Number] {
			t.Errorf("statement %d: id %q, stored %q", s.Number, s.ID, storedA[s.Number])
		}
		if again[i] != s {
			t.Errorf("statement %d: %+v on one request, %+v on the next", s.Number, s, again[i])
		}
		if seen[s.ID] {
			t.Errorf("id %s twice", s.ID)
		}
		seen[s.ID] = true
	}
	one := gql(t, srv.URL, tokA, `query($n: Int!) { settlementStatement(number: $n) { id number } }`,
		map[string]any{"n": first[0].Number})
	var single stmt
	one.Field(t, "settlementStatement", &single)
	if single != first[0] {
		t.Errorf("single read %+v, in the list %+v", single, first[0])
	}

	// B's statements carry B's ids, never A's, though their numbers repeat.
	shared := 0
	for _, s := range list(tokB) {
		if s.ID != storedB[s.Number] || seen[s.ID] {
			t.Errorf("B's statement %d: id %q (B stored %q, A's: %v)", s.Number, s.ID, storedB[s.Number], seen[s.ID])
		}
		if _, ok := storedA[s.Number]; ok {
			shared++
		}
	}
	if shared == 0 {
		t.Fatal("no statement number is in both tenants: the test proves nothing")
	}
}
