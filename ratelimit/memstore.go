package ratelimit

import (
	"context"
	"errors"
	"math"
	"sync"
	"time"
)

// ErrFull is a MemStore's refusal of a new key when it holds Max buckets
// none of which is full again: the caller must refuse, not pass.
var ErrFull = errors.New("ratelimit: no room for another bucket")

// MemStore keeps buckets in this instance's memory, at most max of them:
// for keys no other instance has to share (a caller's address), so that a
// new key costs no database write. A full bucket is forgotten, since a
// missing key is a full bucket.
type MemStore struct {
	max int

	mu        sync.Mutex
	buckets   map[string]memBucket
	nextSweep time.Time // no bucket is full again before then
}

type memBucket struct {
	tokens float64
	at     time.Time
	limit  Limit
}

// NewMemStore returns an empty store of at most max buckets (max ≥ 1).
func NewMemStore(max int) *MemStore {
	return &MemStore{max: max, buckets: map[string]memBucket{}}
}

// Lease is PGStore.Lease (rate_limit_lease, migration 0013) on memory.
func (s *MemStore) Lease(_ context.Context, key string, l Limit, want, giveBack int, now time.Time) (granted int, left float64, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.buckets[key]
	if !ok {
		if len(s.buckets) >= s.max && !s.sweep(now) {
			return 0, 0, ErrFull
		}
		b = memBucket{tokens: float64(l.Burst), at: now}
	}
	avail := math.Min(float64(l.Burst), b.tokens+float64(max(0, giveBack))+math.Max(0, now.Sub(b.at).Seconds())*l.Rate)
	granted = int(math.Min(float64(want), math.Floor(avail)))
	left = avail - float64(granted)
	if now.After(b.at) {
		b.at = now
	}
	b.tokens, b.limit = left, l
	s.buckets[key] = b
	if full := now.Add(l.fill(left)); !ok && full.Before(s.nextSweep) {
		s.nextSweep = full
	}
	return granted, left, nil
}

// sweep forgets the buckets that are full again by now and reports whether
// there is room; a sweep that frees nothing is not repeated before the
// first bucket can be full, so a full store costs one pass per refill.
func (s *MemStore) sweep(now time.Time) bool {
	if now.Before(s.nextSweep) {
		return false
	}
	next := time.Time{}
	for k, b := range s.buckets {
		full := b.at.Add(b.limit.fill(b.tokens))
		if !now.Before(full) {
			delete(s.buckets, k)
		} else if next.IsZero() || full.Before(next) {
			next = full
		}
	}
	s.nextSweep = next
	return len(s.buckets) < s.max
}

// Prune forgets the buckets not leased from since before.
func (s *MemStore) Prune(_ context.Context, before time.Time) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var n int64
	for k, b := range s.buckets {
		if b.at.Before(before) {
			delete(s.buckets, k)
			n++
		}
	}
	return n, nil
}

// Len is the number of buckets held.
func (s *MemStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.buckets)
}
