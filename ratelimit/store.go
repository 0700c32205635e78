package ratelimit

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// PGStore keeps the shared buckets in PostgreSQL (migration 0007). It is
// called once per lease, never once per request.
type PGStore struct{ Pool *pgxpool.Pool }

// Lease refills key's bucket up to now, gives back giveBack unspent tokens
// and takes up to want whole tokens, returning how many it took and the
// tokens left in the shared bucket (migration 0013).
func (s PGStore) Lease(ctx context.Context, key string, l Limit, want, giveBack int, now time.Time) (granted int, left float64, err error) {
	err = s.Pool.QueryRow(ctx, "SELECT granted, remaining FROM rate_limit_lease($1, $2, $3, $4, $5, $6)",
		key, l.Rate, float64(l.Burst), want, giveBack, now).Scan(&granted, &left)
	if err != nil {
		return 0, 0, fmt.Errorf("ratelimit: lease %s: %w", key, err)
	}
	return granted, left, nil
}

// Prune deletes the buckets not leased from since before: an idle bucket is
// full, exactly what a missing one becomes on its next lease.
func (s PGStore) Prune(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.Pool.Exec(ctx, "DELETE FROM rate_limit_buckets WHERE refreshed_at < $1", before)
	if err != nil {
		return 0, fmt.Errorf("ratelimit: prune: %w", err)
	}
	return tag.RowsAffected(), nil
}
