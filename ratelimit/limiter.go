// Package ratelimit is HaulGraph's token-bucket rate limiter (DESIGN.md: per
// client and per tenant). The buckets live in PostgreSQL so that every
// instance shares them; each instance leases a slice of a bucket at a time and
// spends it locally, so the database sees one write per slice, not per request.
package ratelimit

import (
	"context"
	"math"
	"sync"
	"time"
)

// Limit is one bucket's shape: Rate tokens per second, at most Burst stored.
type Limit struct {
	Rate  float64
	Burst int
}

// PerSecond is a bucket of rate tokens per second holding one second's worth.
func PerSecond(rate float64) Limit {
	return Limit{Rate: rate, Burst: max(1, int(math.Ceil(rate)))}
}

// Store is where the shared buckets live (PGStore in production and tests).
type Store interface {
	Lease(ctx context.Context, key string, l Limit, want int, now time.Time) (granted int, left float64, err error)
	Prune(ctx context.Context, before time.Time) (int64, error)
}

// Decision is the outcome of one Take, with what the RateLimit-* headers say.
type Decision struct {
	Allowed   bool
	Limit     int           // the bucket's size (RateLimit-Limit)
	Remaining int           // requests left before throttling (an estimate across instances)
	Reset     time.Duration // until the bucket is full again
	// RetryAfter is when a refused caller may try again (Retry-After).
	RetryAfter time.Duration
}

// leaseTTL bounds how long an instance may keep leased tokens: a slice that
// outlives it would let a client exceed its burst after the bucket refilled.
const leaseTTL = time.Second

// pruneEvery is how often an instance deletes buckets idle for pruneIdle,
// by when a bucket of PerSecond is full again for any rate of one an hour or more.
const (
	pruneEvery = 10 * time.Minute
	pruneIdle  = time.Hour
)

// sweepAbove is the number of idle keys that triggers forgetting them.
const sweepAbove = 10000

// Limiter hands out tokens from shared buckets.
type Limiter struct {
	store Store
	now   func() time.Time

	mu   sync.Mutex
	keys map[string]*slice

	pruneMu   sync.Mutex
	lastPrune time.Time
}

// slice is this instance's share of one bucket.
type slice struct {
	mu          sync.Mutex
	tokens      int       // leased, not yet spent
	expires     time.Time // leased tokens are void after this
	shared      float64   // tokens left in the shared bucket at the last lease
	deniedUntil time.Time // refuse locally until then, without asking the store
}

// New returns a limiter over store; now is its clock (nil: time.Now).
func New(store Store, now func() time.Time) *Limiter {
	if now == nil {
		now = time.Now
	}
	return &Limiter{store: store, now: now, keys: map[string]*slice{}}
}

// batch is how many tokens one lease asks for: a fifth of the bucket, so a
// busy client costs at most about five database writes a second per instance
// while an idle instance holds back little of the shared budget.
func batch(l Limit) int { return max(1, l.Burst/5) }

// Take spends one token of key's bucket.
func (lm *Limiter) Take(ctx context.Context, key string, l Limit) (Decision, error) {
	s := lm.slice(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := lm.now()
	d := Decision{Limit: l.Burst}
	if now.Before(s.deniedUntil) {
		d.RetryAfter = s.deniedUntil.Sub(now)
		d.Reset = l.fill(s.shared) + d.RetryAfter
		return d, nil
	}
	if s.tokens == 0 || !now.Before(s.expires) {
		granted, left, err := lm.store.Lease(ctx, key, l, batch(l), now)
		if err != nil {
			return d, err
		}
		lm.maybePrune(ctx, now)
		s.tokens, s.shared, s.expires = granted, left, now.Add(leaseTTL)
		if granted == 0 {
			wait := time.Duration((1 - left) / l.Rate * float64(time.Second))
			s.deniedUntil = now.Add(wait)
			d.RetryAfter, d.Reset = wait, l.fill(left)
			return d, nil
		}
	}
	s.tokens--
	have := float64(s.tokens) + s.shared
	d.Allowed = true
	d.Remaining = min(l.Burst, int(math.Floor(have)))
	d.Reset = l.fill(have)
	return d, nil
}

// maybePrune deletes idle buckets at most every pruneEvery; a failure only
// postpones it.
func (lm *Limiter) maybePrune(ctx context.Context, now time.Time) {
	lm.pruneMu.Lock()
	defer lm.pruneMu.Unlock()
	if now.Sub(lm.lastPrune) < pruneEvery {
		return
	}
	if _, err := lm.store.Prune(ctx, now.Add(-pruneIdle)); err == nil {
		lm.lastPrune = now
	}
}

// fill is how long a bucket holding have tokens takes to be full.
func (l Limit) fill(have float64) time.Duration {
	missing := float64(l.Burst) - have
	if missing <= 0 {
		return 0
	}
	return time.Duration(missing / l.Rate * float64(time.Second))
}

func (lm *Limiter) slice(key string) *slice {
	lm.mu.Lock()
	defer lm.mu.Unlock()
	if s, ok := lm.keys[key]; ok {
		return s
	}
	if len(lm.keys) >= sweepAbove {
		lm.sweep()
	}
	s := &slice{}
	lm.keys[key] = s
	return s
}

// sweep forgets keys holding nothing (anonymous callers' addresses would
// otherwise accumulate). Callers hold lm.mu.
func (lm *Limiter) sweep() {
	now := lm.now()
	for k, s := range lm.keys {
		if s.mu.TryLock() {
			idle := !now.Before(s.expires) && !now.Before(s.deniedUntil)
			s.mu.Unlock()
			if idle {
				delete(lm.keys, k)
			}
		}
	}
}
