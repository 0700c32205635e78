package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// RateLimits keeps the rate limiter's shared buckets (rate_limit_buckets),
// leased through rate_limit_lease (migration 0013).
type RateLimits struct{ DB *DB }

// LeaseBucket refills key's bucket (rate tokens a second, burst at most) up
// to now, gives back giveBack unspent tokens and takes up to want whole
// tokens: how many it took and what is left in the bucket.
func (s *RateLimits) LeaseBucket(ctx context.Context, key string, rate float64, burst, want, giveBack int, now time.Time) (granted int, left float64, err error) {
	err = s.DB.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT granted, remaining FROM rate_limit_lease($1, $2, $3, $4, $5, $6)",
			func(r pgx.Rows) error { return r.Scan(&granted, &left) }, key, rate, float64(burst), want, giveBack, now)
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("ratelimit: lease %s: %w", key, err)
	}
	return granted, left, nil
}

// PruneBuckets deletes the buckets not leased from since before.
func (s *RateLimits) PruneBuckets(ctx context.Context, before time.Time) (int64, error) {
	var n int64
	err := s.DB.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.execCount(&n, "DELETE FROM rate_limit_buckets WHERE refreshed_at < $1", before)
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("ratelimit: prune: %w", err)
	}
	return n, nil
}
