package operation

import (
	"container/list"
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/haulgraph/haulgraph/domain"
)

// tenantCache is a gqlgen cache partitioned by the caller's tenant: what one
// tenant put in is found by that tenant alone, and each tenant's part is
// bounded on its own (entries, and bytes as size reckons them), least
// recently used out first, so one tenant's traffic only ever evicts its own
// entries. Neither a hit nor an eviction tells a tenant anything of
// another's requests. Without a caller nothing is kept or found. All
// tenants together hold at most total bytes: past it the tenant holding
// the most gives up its least recently used entry (a tenant's own traffic
// evicts another's only when that other holds more).
type tenantCache[T any] struct {
	entries, bytes, total int
	size                  func(key string, v T) int

	mu      sync.Mutex
	tenants map[uuid.UUID]*tenantPart[T]
	held    int // bytes of every tenant
}

type tenantPart[T any] struct {
	lru   *list.List // of *cached[T], most recently used first
	byKey map[string]*list.Element
	bytes int
}

type cached[T any] struct {
	key   string
	value T
	size  int
}

func newTenantCache[T any](entries, bytes, total int, size func(string, T) int) *tenantCache[T] {
	return &tenantCache[T]{entries: entries, bytes: bytes, total: total, size: size, tenants: map[uuid.UUID]*tenantPart[T]{}}
}

// Get is the value the caller's tenant keeps under key.
func (c *tenantCache[T]) Get(ctx context.Context, key string) (T, bool) {
	var zero T
	p := domain.PrincipalFrom(ctx)
	if p == nil {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tenants[p.TenantID]
	if t == nil {
		return zero, false
	}
	e, ok := t.byKey[key]
	if !ok {
		return zero, false
	}
	t.lru.MoveToFront(e)
	return e.Value.(*cached[T]).value, true
}

// Add keeps value under key for the caller's tenant, evicting that tenant's
// least recently used entries past its bounds. A value larger than the
// byte bound is not kept.
func (c *tenantCache[T]) Add(ctx context.Context, key string, value T) {
	p := domain.PrincipalFrom(ctx)
	e := &cached[T]{key: key, value: value, size: c.size(key, value)}
	if p == nil || e.size > c.bytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	t := c.tenants[p.TenantID]
	if t == nil {
		t = &tenantPart[T]{lru: list.New(), byKey: map[string]*list.Element{}}
		c.tenants[p.TenantID] = t
	}
	if old, ok := t.byKey[key]; ok {
		c.held -= t.remove(old)
	}
	t.byKey[key] = t.lru.PushFront(e)
	t.bytes += e.size
	c.held += e.size
	for t.lru.Len() > c.entries || t.bytes > c.bytes {
		c.held -= t.remove(t.lru.Back())
	}
	for c.total > 0 && c.held > c.total {
		c.evictLargest()
	}
}

// evictLargest removes the least recently used entry of the tenant holding
// the most bytes. Callers hold c.mu.
func (c *tenantCache[T]) evictLargest() {
	var largest *tenantPart[T]
	var id uuid.UUID
	for k, t := range c.tenants {
		if largest == nil || t.bytes > largest.bytes {
			largest, id = t, k
		}
	}
	c.held -= largest.remove(largest.lru.Back())
	if largest.lru.Len() == 0 {
		delete(c.tenants, id)
	}
}

// remove drops e and returns its size.
func (t *tenantPart[T]) remove(e *list.Element) int {
	v := t.lru.Remove(e).(*cached[T])
	delete(t.byKey, v.key)
	t.bytes -= v.size
	return v.size
}

// Defaults of the persisted-query bounds (Options.PersistedQueries,
// Options.PersistedQueryBytes), per tenant.
const (
	DefaultPersistedQueries     = 1000
	DefaultPersistedQueryBytes  = 4 << 20
	persistedQueryEntryOverhead = 64 + 64 // the hash and the bookkeeping, roughly
	// persistedQueryTotal bounds every tenant's queries together.
	persistedQueryTotal = 256 << 20
)

// NewPersistedQueries is the automatic persisted query store: a hash
// registered by one tenant runs for that tenant alone (for the others it
// is PERSISTED_QUERY_NOT_FOUND).
func NewPersistedQueries(entries, bytes int) *tenantCache[string] {
	if entries <= 0 {
		entries = DefaultPersistedQueries
	}
	if bytes <= 0 {
		bytes = DefaultPersistedQueryBytes
	}
	return newTenantCache(entries, bytes, persistedQueryTotal, func(hash, query string) int {
		return len(hash) + len(query) + persistedQueryEntryOverhead
	})
}

// Bounds of the cache of validated documents (gqlgen's query cache), in
// bytes of memory as documentBytes counts them from the parsed AST (not the
// text's length: a parsed document of many small values takes some 70
// times its text): per tenant, and all tenants together.
const (
	validatedDocuments     = 250
	ValidatedDocumentBytes = 8 << 20
	ValidatedDocumentTotal = 128 << 20
)

// NewValidatedDocuments is the cache of documents that passed parsing,
// bounds and validation, keyed by their text, per tenant: a tenant cannot
// time another's queries by a hit.
func NewValidatedDocuments() *tenantCache[*ast.QueryDocument] {
	return newTenantCache(validatedDocuments, ValidatedDocumentBytes, ValidatedDocumentTotal, func(query string, doc *ast.QueryDocument) int {
		// The key is the text; the document's source holds it again.
		return len(query) + documentBytes(doc) + persistedQueryEntryOverhead
	})
}

var (
	_ graphql.Cache[string]             = (*tenantCache[string])(nil)
	_ graphql.Cache[*ast.QueryDocument] = (*tenantCache[*ast.QueryDocument])(nil)
)
