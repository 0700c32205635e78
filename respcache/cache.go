// Package respcache remembers the answers of reads in memory, each with the
// tenant's versions of the resources it was computed from
// (domain.Versions, bumped by every writer in the writing transaction), and
// serves one only while a fresh read of those versions equals them: never
// staler than an uncached read. It keys answers by everything that can change
// them (the caller's tenant and scopes, the operation and its input, the
// representation), bounds them per instance and per tenant, computes
// concurrent misses of one key once, and names each answer with a strong
// ETag, the same on every instance for the same data.
package respcache

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"net/http"
	"slices"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/maypok86/otter/v2"
	"golang.org/x/sync/singleflight"

	"github.com/haulgraph/haulgraph/domain"
)

// DefaultBytes is HAULGRAPH_RESPONSE_CACHE_BYTES's default.
const DefaultBytes = 64 << 20

// TenantShares is how many tenants' shares the total holds: one tenant's
// answers take at most Bytes/TenantShares.
const TenantShares = 4

// VersionStore reads a tenant's versions (storage.ResponseVersions) as a
// tenant read of ctx: on the database the request's own reads use.
type VersionStore interface {
	Versions(ctx context.Context, tenant uuid.UUID) (domain.Versions, error)
}

// Key names one answer: a hash of the tenant, the caller's scopes and
// whatever the transport says determines the answer (NewKey).
type Key [sha256.Size]byte

// NewKey hashes the principal's tenant and scopes (in any order) with parts
// (the transport, API version, operation, canonical input, representation).
func NewKey(p *domain.Principal, parts ...string) Key {
	h := sha256.New()
	var n [8]byte
	write := func(s string) { // length-prefixed: no two lists hash alike
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	write(p.TenantID.String())
	scopes := make([]string, len(p.Scopes))
	for i, s := range p.Scopes {
		scopes[i] = string(s)
	}
	slices.Sort(scopes)
	scopes = slices.Compact(scopes)
	write(string(rune(len(scopes))))
	for _, s := range scopes {
		write(s)
	}
	for _, s := range parts {
		write(s)
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// Answer is what is remembered of one answer: its body and content headers
// (never per-request ones), and the versions it was computed at.
type Answer struct {
	Body   []byte
	Header http.Header
	// Status is the answer's status (only 200s are stored).
	Status   int
	versions domain.Versions
}

func (a *Answer) size() int64 {
	n := int64(len(a.Body)) + 256
	for k, vs := range a.Header {
		n += int64(len(k))
		for _, v := range vs {
			n += int64(len(v))
		}
	}
	return n
}

// Cache is one instance's response cache; nil is no cache (every call
// computes).
type Cache struct {
	versions VersionStore
	share    int64
	maxEntry int64
	tenants  *otter.Cache[uuid.UUID, *tenantCache]
	flight   singleflight.Group
	stats    stats
}

type stats struct {
	hits, misses, invalidations, evictions, unchecked atomic.Uint64
}

// tenantCache holds one tenant's answers within its share.
type tenantCache struct {
	answers *otter.Cache[Key, *Answer]
}

// New returns a cache of at most bytes (0 or less: nil, no cache), each
// tenant's answers within bytes/TenantShares, an answer above an eighth of
// that not stored.
//
// otter bounds a cache by weight but has no notion of tenants: each tenant's
// answers are an otter cache bounded by the share, and the tenants' caches
// sit in an outer otter cache bounded by the total, each weighing the bytes
// it holds (weighed again whenever it stores an answer), so the total holds
// and a tenant's flood evicts only its own answers.
func New(bytes int64, versions VersionStore) *Cache {
	if bytes <= 0 {
		return nil
	}
	c := &Cache{versions: versions, share: max(bytes/TenantShares, 1), maxEntry: max(bytes/TenantShares/8, 1)}
	c.tenants = otter.Must(&otter.Options[uuid.UUID, *tenantCache]{
		MaximumWeight: uint64(bytes),
		Executor:      inline,
		Weigher: func(_ uuid.UUID, tc *tenantCache) uint32 {
			return uint32(min(tc.answers.WeightedSize()+1, 1<<32-1))
		},
		OnDeletion: func(e otter.DeletionEvent[uuid.UUID, *tenantCache]) {
			if e.Cause.IsEviction() {
				c.stats.evictions.Add(uint64(e.Value.answers.EstimatedSize()))
			}
		},
	})
	return c
}

// inline runs otter's maintenance and deletion handlers on the goroutine
// that caused them (its default starts a goroutine for each, which nothing
// would wait for): they are short, and the handlers only count.
func inline(fn func()) { fn() }

func (c *Cache) tenant(id uuid.UUID) *tenantCache {
	if tc, ok := c.tenants.GetIfPresent(id); ok {
		return tc
	}
	tc := &tenantCache{answers: otter.Must(&otter.Options[Key, *Answer]{
		MaximumWeight: uint64(c.share),
		Executor:      inline,
		Weigher:       func(_ Key, a *Answer) uint32 { return uint32(a.size()) },
		OnDeletion: func(e otter.DeletionEvent[Key, *Answer]) {
			if e.Cause.IsEviction() {
				c.stats.evictions.Add(1)
			}
		},
	})}
	tc, _ = c.tenants.SetIfAbsent(id, tc)
	return tc
}

// Read is one cacheable request's look at the cache: its key, the resources
// its answer depends on, their versions read at its start, and the tag they
// make.
type Read struct {
	key      Key
	tenant   uuid.UUID
	reads    domain.Resources
	versions domain.Versions
	etag     string
}

// Begin reads the versions of reads for the request's tenant. ok is false
// when they cannot be read (the database unreachable, no cache, no
// principal): the request is then answered as if uncached.
func (c *Cache) Begin(ctx context.Context, key Key, reads domain.Resources) (Read, bool) {
	p := domain.PrincipalFrom(ctx)
	if c == nil || p == nil || reads == 0 {
		return Read{}, false
	}
	v, err := c.versions.Versions(ctx, p.TenantID)
	if err != nil {
		c.stats.unchecked.Add(1)
		return Read{}, false
	}
	rd := Read{key: key, tenant: p.TenantID, reads: reads, versions: v}
	rd.etag = rd.tag()
	return rd, true
}

// ETag is the strong entity tag of the answer rd names: its key and the
// versions of the resources it reads, so the same on every instance while
// those are unchanged.
func (rd Read) ETag() string { return rd.etag }

// tag computes ETag's value, once per request (Begin).
func (rd Read) tag() string {
	h := sha256.New()
	h.Write(rd.key[:])
	var n [8]byte
	for r := domain.Resource(0); r < domain.NumResources; r++ {
		if rd.reads.Has(r) {
			binary.BigEndian.PutUint64(n[:], uint64(rd.versions[r]))
			h.Write(n[:])
		}
	}
	var sum [sha256.Size]byte
	return `"` + base64.RawURLEncoding.EncodeToString(h.Sum(sum[:0])[:18]) + `"`
}

func (rd Read) current(a *Answer) bool {
	for r := domain.Resource(0); r < domain.NumResources; r++ {
		if rd.reads.Has(r) && a.versions[r] != rd.versions[r] {
			return false
		}
	}
	return true
}

// Get returns the answer stored for rd's key if it was computed at rd's
// versions, else computes it with compute (once for concurrent callers of
// one key and versions) and stores it when store says it may be (a 200
// without errors, not above the size bound). hit reports whether the answer
// came from memory; Stats counts a miss for each request that did not find
// it at first look.
func (c *Cache) Get(rd Read, compute func() (a *Answer, store bool)) (a *Answer, hit bool) {
	tc := c.tenant(rd.tenant)
	if a, ok := tc.answers.GetIfPresent(rd.key); ok {
		if rd.current(a) {
			c.stats.hits.Add(1)
			return a, true
		}
		if _, kept := tc.answers.ComputeIfPresent(rd.key, func(old *Answer) (*Answer, otter.ComputeOp) {
			if old == a {
				return nil, otter.InvalidateOp
			}
			return old, otter.CancelOp
		}); !kept {
			c.stats.invalidations.Add(1)
		}
	}
	c.stats.misses.Add(1)
	type result struct {
		a     *Answer
		store bool
	}
	var computed, stored bool
	// The tag hashes the key with the versions: one flight per key and
	// versions.
	v, _, _ := c.flight.Do(rd.etag, func() (any, error) {
		computed = true
		// A flight of this key that ended between the look above and this
		// one has stored the answer: it is not computed again.
		if a, ok := tc.answers.GetIfPresent(rd.key); ok && rd.current(a) {
			stored = true
			return result{a, true}, nil
		}
		a, store := compute()
		if store && a != nil && a.size() <= c.maxEntry {
			stored := *a
			stored.versions = rd.versions
			tc.answers.Set(rd.key, &stored)
			c.tenants.Set(rd.tenant, tc) // weighed again
		}
		return result{a, store}, nil
	})
	res := v.(result)
	if !computed && !res.store {
		// Another request's answer that may not be shared (a failure, an
		// error of its own): this one computes its own.
		a, _ := compute()
		return a, false
	}
	return res.a, stored
}
