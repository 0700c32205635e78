package ratelimit

import (
	"context"
	"time"
)

// Buckets is the table of shared buckets (storage.RateLimits).
type Buckets interface {
	LeaseBucket(ctx context.Context, key string, rate float64, burst, want, giveBack int, now time.Time) (granted int, left float64, err error)
	PruneBuckets(ctx context.Context, before time.Time) (int64, error)
}

// PGStore keeps the shared buckets in PostgreSQL. It is called once per
// lease, never once per request.
type PGStore struct{ Buckets Buckets }

// Lease refills key's bucket up to now, gives back giveBack unspent tokens
// and takes up to want whole tokens, returning how many it took and the
// tokens left in the shared bucket.
func (s PGStore) Lease(ctx context.Context, key string, l Limit, want, giveBack int, now time.Time) (granted int, left float64, err error) {
	return s.Buckets.LeaseBucket(ctx, key, l.Rate, l.Burst, want, giveBack, now)
}

// Prune deletes the buckets not leased from since before: an idle bucket is
// full, exactly what a missing one becomes on its next lease.
func (s PGStore) Prune(ctx context.Context, before time.Time) (int64, error) {
	return s.Buckets.PruneBuckets(ctx, before)
}
