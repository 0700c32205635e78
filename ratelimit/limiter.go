// Package ratelimit is HaulGraph's token-bucket rate limiter (docs/architecture.md: per
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
	// Lease gives back giveBack unspent tokens, then takes up to want.
	Lease(ctx context.Context, key string, l Limit, want, giveBack int, now time.Time) (granted int, left float64, err error)
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
	deniedUntil time.Time // refuse locally until then, without asking the store,
	deniedN     int       // takes of at least this many tokens
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
	return lm.TakeN(ctx, key, l, 1)
}

// TakeN spends n tokens of key's bucket at once, or none: the GraphQL cost
// budget charges a query's whole requested cost before running it. n above
// the burst can never be granted and is refused as if the bucket were empty.
func (lm *Limiter) TakeN(ctx context.Context, key string, l Limit, n int) (Decision, error) {
	n = max(n, 0)
	s := lm.slice(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	now := lm.now()
	d := Decision{Limit: l.Burst}
	if n >= s.deniedN && now.Before(s.deniedUntil) {
		d.RetryAfter = s.deniedUntil.Sub(now)
		d.Reset = l.fill(s.shared) + d.RetryAfter
		return d, nil
	}
	if s.tokens < n || !now.Before(s.expires) {
		giveBack := 0
		if !now.Before(s.expires) { // expired tokens go back to the shared bucket
			giveBack, s.tokens = s.tokens, 0
		}
		granted, left, err := lm.store.Lease(ctx, key, l, max(batch(l), n-s.tokens), giveBack, now)
		if err != nil {
			s.tokens += giveBack // not given back after all: keep them for the next lease
			return d, err
		}
		lm.maybePrune(ctx, now)
		s.tokens += granted
		s.shared, s.expires = left, now.Add(leaseTTL)
		if s.tokens < n {
			missing := float64(n-s.tokens) - left
			if n > l.Burst {
				missing = float64(l.Burst) // never grantable: wait for a full bucket
			}
			wait := time.Duration(missing / l.Rate * float64(time.Second))
			s.deniedUntil, s.deniedN = now.Add(wait), n
			d.RetryAfter, d.Reset = wait, l.fill(left+float64(s.tokens))
			d.Remaining = min(l.Burst, int(math.Floor(left+float64(s.tokens))))
			return d, nil
		}
	}
	s.tokens -= n
	s.deniedN = 0
	have := float64(s.tokens) + s.shared
	d.Allowed = true
	d.Remaining = min(l.Burst, int(math.Floor(have)))
	d.Reset = l.fill(have)
	return d, nil
}

// Refund returns n tokens taken but not used (a query that cost less than
// requested) to this instance's slice; tokens the slice cannot use before
// its lease expires go back to the shared bucket with the next lease. The
// decision reports the bucket after the refund.
func (lm *Limiter) Refund(key string, l Limit, n int) Decision {
	s := lm.slice(key)
	s.mu.Lock()
	defer s.mu.Unlock()
	if n > 0 {
		s.tokens = min(s.tokens+n, l.Burst)
		s.deniedUntil = time.Time{}
	}
	have := float64(s.tokens) + s.shared
	return Decision{Allowed: true, Limit: l.Burst, Remaining: min(l.Burst, int(math.Floor(have))), Reset: l.fill(have)}
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
