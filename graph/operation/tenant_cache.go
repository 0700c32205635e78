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
// another's requests. Without a caller nothing is kept or found.
type tenantCache[T any] struct {
	entries, bytes int
	size           func(key string, v T) int

	mu      sync.Mutex
	tenants map[uuid.UUID]*tenantPart[T]
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

func newTenantCache[T any](entries, bytes int, size func(string, T) int) *tenantCache[T] {
	return &tenantCache[T]{entries: entries, bytes: bytes, size: size, tenants: map[uuid.UUID]*tenantPart[T]{}}
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
		t.remove(old)
	}
	t.byKey[key] = t.lru.PushFront(e)
	t.bytes += e.size
	for t.lru.Len() > c.entries || t.bytes > c.bytes {
		t.remove(t.lru.Back())
	}
}

func (t *tenantPart[T]) remove(e *list.Element) {
	v := t.lru.Remove(e).(*cached[T])
	delete(t.byKey, v.key)
	t.bytes -= v.size
}

// Defaults of the persisted-query bounds (Options.PersistedQueries,
// Options.PersistedQueryBytes), per tenant.
const (
	DefaultPersistedQueries     = 1000
	DefaultPersistedQueryBytes  = 4 << 20
	persistedQueryEntryOverhead = 64 + 64 // the hash and the bookkeeping, roughly
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
	return newTenantCache(entries, bytes, func(hash, query string) int {
		return len(hash) + len(query) + persistedQueryEntryOverhead
	})
}

// Bounds of each tenant's cache of validated documents (gqlgen's query
// cache): a document's parsed form takes some ten times its text, so 1 MiB
// of text is about 10 MiB of memory per tenant at most.
const (
	validatedDocuments     = 250
	validatedDocumentBytes = 1 << 20
)

// NewValidatedDocuments is the cache of documents that passed parsing,
// bounds and validation, keyed by their text, per tenant: a tenant cannot
// time another's queries by a hit.
func NewValidatedDocuments() *tenantCache[*ast.QueryDocument] {
	return newTenantCache(validatedDocuments, validatedDocumentBytes, func(query string, _ *ast.QueryDocument) int {
		return len(query) + persistedQueryEntryOverhead
	})
}

var (
	_ graphql.Cache[string]             = (*tenantCache[string])(nil)
	_ graphql.Cache[*ast.QueryDocument] = (*tenantCache[*ast.QueryDocument])(nil)
)
