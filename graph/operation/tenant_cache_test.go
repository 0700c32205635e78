package operation

import (
	"context"
	"fmt"
	"testing"

	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/haulgraph/haulgraph/domain"
)

// TestPersistedQueriesPerTenant: a hash is found for the tenant that
// registered it only, and a tenant past its bounds (entries, bytes) evicts
// its own least recently used queries, never another tenant's.
func TestPersistedQueriesPerTenant(t *testing.T) {
	t.Parallel()
	as := func(tenant uuid.UUID) context.Context {
		return domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: tenant})
	}
	a, b := as(uuid.New()), as(uuid.New())
	c := NewPersistedQueries(3, 1000)
	c.Add(a, "h1", "{ a1 }")
	c.Add(b, "hb", "{ b }")
	if _, ok := c.Get(b, "h1"); ok {
		t.Fatal("b found a's hash")
	}
	if q, ok := c.Get(a, "h1"); !ok || q != "{ a1 }" {
		t.Fatalf("a's own hash: %q %v", q, ok)
	}
	for i := range 10 {
		c.Add(a, fmt.Sprint("x", i), "{ x }")
	}
	if q, ok := c.Get(b, "hb"); !ok || q != "{ b }" {
		t.Fatal("a's registrations evicted b's")
	}
	if _, ok := c.Get(a, "h1"); ok {
		t.Fatal("a holds more than 3 entries")
	}
	if _, ok := c.Get(a, "x9"); !ok {
		t.Fatal("a's latest entry is gone")
	}
	// Bytes: a query of 700 bytes leaves room for no second one.
	big := string(make([]byte, 700))
	c.Add(a, "big1", big)
	c.Add(a, "big2", big)
	if _, ok := c.Get(a, "big1"); ok {
		t.Fatal("a holds more than its bytes")
	}
	if _, ok := c.Get(a, "big2"); !ok {
		t.Fatal("the latest query is gone")
	}
	c.Add(a, "huge", string(make([]byte, 2000)))
	if _, ok := c.Get(a, "huge"); ok {
		t.Fatal("a query above the byte bound was kept")
	}
	if _, ok := c.Get(context.Background(), "hb"); ok {
		t.Fatal("found without a caller")
	}
}

// TestValidatedDocumentsPerTenant: the cache of validated documents the
// handler uses is partitioned the same way: a document one tenant sent is
// no hit for another (no timing tells one tenant what another queried),
// and one tenant's stream of new documents evicts only its own.
func TestValidatedDocumentsPerTenant(t *testing.T) {
	t.Parallel()
	as := func(tenant uuid.UUID) context.Context {
		return domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: tenant})
	}
	a, b := as(uuid.New()), as(uuid.New())
	c := NewValidatedDocuments()
	doc := &ast.QueryDocument{}
	c.Add(b, "{ b }", doc)
	c.Add(a, "{ shared }", doc)
	if _, ok := c.Get(b, "{ shared }"); ok {
		t.Fatal("b hit a's document")
	}
	for i := range validatedDocuments + 50 {
		c.Add(a, fmt.Sprintf("{ a%d }", i), doc)
	}
	if got, ok := c.Get(b, "{ b }"); !ok || got != doc {
		t.Fatal("a's documents evicted b's")
	}
	if _, ok := c.Get(a, "{ shared }"); ok {
		t.Fatalf("a holds more than %d documents", validatedDocuments)
	}
}
