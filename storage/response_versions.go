package storage

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
)

// ResponseVersions reads a tenant's versions of the resources (migration
// 0023: bumped by triggers in every writing transaction), for the response
// cache.
type ResponseVersions struct{ DB *DB }

// versionsSQL reads the tenant's slots, each resource a column.
var versionsSQL = "SELECT slot, " + strings.Join(domain.ResourceNames[:], ", ") +
	" FROM response_versions WHERE tenant_id = $1"

// Versions reads tenant's versions in one round trip, as a tenant read of ctx
// (on the replica the request's other reads use, when it is read-only).
//
// A resource's version is a fingerprint of its counter in every slot, not
// their sum: two databases (the primary and a replica) may each see one of
// two concurrent commits that bumped different slots, with equal sums but
// different data; their slot counters differ. (Commits that bump one slot
// take its row lock in turn, so every database sees them in one order.)
func (v *ResponseVersions) Versions(ctx context.Context, tenant uuid.UUID) (domain.Versions, error) {
	var out domain.Versions
	var slot int16
	var counts domain.Versions
	dest := make([]any, 1+len(counts))
	dest[0] = &slot
	for i := range counts {
		dest[1+i] = &counts[i]
	}
	err := v.DB.readTenant(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		tx.query(versionsSQL, func(row pgx.Rows) error {
			if err := row.Scan(dest...); err != nil {
				return err
			}
			for r, n := range counts {
				out[r] += slotFingerprint(slot, n)
			}
			return nil
		}, tenant)
		return nil // run flushes
	})
	return out, err
}

// slotFingerprint mixes a slot and its count (splitmix64's finalizer); a
// count of 0 is 0, as a slot without a row.
func slotFingerprint(slot int16, n int64) int64 {
	if n == 0 {
		return 0
	}
	x := uint64(n)*0x9e3779b97f4a7c15 + uint64(slot)
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return int64(x ^ x>>31)
}
