package graph

import (
	"container/list"
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
)

// Defaults of the persisted-query bounds (Options.PersistedQueries,
// Options.PersistedQueryBytes), per tenant.
const (
	DefaultPersistedQueries     = 1000
	DefaultPersistedQueryBytes  = 4 << 20
	persistedQueryEntryOverhead = 64 + 64 // the hash and the bookkeeping, roughly
)

// persistedQueries is the automatic persisted query store, one per tenant:
// a hash registered by one tenant runs for that tenant alone (for the
// others it is PERSISTED_QUERY_NOT_FOUND), and each tenant's store is
// bounded on its own, in entries and bytes, least recently used out first,
// so one tenant's registrations only ever evict its own.
type persistedQueries struct {
	entries, bytes int

	mu      sync.Mutex
	tenants map[uuid.UUID]*tenantQueries
}

var _ graphql.Cache[string] = (*persistedQueries)(nil)

type tenantQueries struct {
	lru    *list.List // of *persistedQuery, most recently used first
	byHash map[string]*list.Element
	bytes  int
}

type persistedQuery struct{ hash, query string }

func (q *persistedQuery) size() int { return len(q.hash) + len(q.query) + persistedQueryEntryOverhead }

func newPersistedQueries(entries, bytes int) *persistedQueries {
	if entries <= 0 {
		entries = DefaultPersistedQueries
	}
	if bytes <= 0 {
		bytes = DefaultPersistedQueryBytes
	}
	return &persistedQueries{entries: entries, bytes: bytes, tenants: map[uuid.UUID]*tenantQueries{}}
}

// Get is the query tenant registered under hash. Without a caller (refused
// before this anyway) nothing is found.
func (c *persistedQueries) Get(ctx context.Context, hash string) (string, bool) {
	p := domain.PrincipalFrom(ctx)
	if p == nil {
		return "", false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tenants[p.TenantID]
	if t == nil {
		return "", false
	}
	e, ok := t.byHash[hash]
	if !ok {
		return "", false
	}
	t.lru.MoveToFront(e)
	return e.Value.(*persistedQuery).query, true
}

// Add registers query under hash for the caller's tenant, evicting that
// tenant's least recently used queries past its bounds. A query larger
// than the byte bound runs but is not kept.
func (c *persistedQueries) Add(ctx context.Context, hash, query string) {
	p := domain.PrincipalFrom(ctx)
	pq := &persistedQuery{hash: hash, query: query}
	if p == nil || pq.size() > c.bytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tenants[p.TenantID]
	if t == nil {
		t = &tenantQueries{lru: list.New(), byHash: map[string]*list.Element{}}
		c.tenants[p.TenantID] = t
	}
	if e, ok := t.byHash[hash]; ok {
		t.remove(e)
	}
	t.byHash[hash] = t.lru.PushFront(pq)
	t.bytes += pq.size()
	for t.lru.Len() > c.entries || t.bytes > c.bytes {
		t.remove(t.lru.Back())
	}
}

func (t *tenantQueries) remove(e *list.Element) {
	q := t.lru.Remove(e).(*persistedQuery)
	delete(t.byHash, q.hash)
	t.bytes -= q.size()
}
