package storage

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
)

// ResponseVersions reads a tenant's versions of the resources (migration
// 0022: bumped by triggers in every writing transaction), for the response
// cache.
type ResponseVersions struct{ DB *DB }

// versionsSQL sums each resource's column over the tenant's slots.
var versionsSQL = func() string {
	cols := make([]string, len(domain.ResourceNames))
	for i, name := range domain.ResourceNames {
		cols[i] = "coalesce(sum(" + name + "), 0)::bigint"
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM response_versions WHERE tenant_id = $1"
}()

// Versions reads tenant's versions in one round trip, as a tenant read of ctx
// (on the replica the request's other reads use, when it is read-only).
func (v *ResponseVersions) Versions(ctx context.Context, tenant uuid.UUID) (domain.Versions, error) {
	var out domain.Versions
	dest := make([]any, len(out))
	for i := range out {
		dest[i] = &out[i]
	}
	err := v.DB.readTenant(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		_, err := tx.queryRow(ctx, versionsSQL, dest, tenant)
		return err
	})
	return out, err
}
