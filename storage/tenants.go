package storage

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
)

// Tenants is tenant administration's store (domain.TenantStore). It works
// across tenants, with the owner's rights: operators use it, never the API.
type Tenants struct{ DB *DB }

var _ domain.TenantStore = (*Tenants)(nil)

// maxTenantList bounds a listing.
const maxTenantList = 10000

// CreateTenant inserts t unless its slug exists; then the existing tenant.
func (s *Tenants) CreateTenant(ctx context.Context, t domain.Tenant) (domain.Tenant, bool, error) {
	var n int64
	err := s.DB.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		tx.execCount(&n, "INSERT INTO tenants (id, slug, name) VALUES ($1, $2, $3) ON CONFLICT (slug) DO NOTHING", t.ID, t.Slug, t.Name)
		tx.query("SELECT id, slug, name, created_at FROM tenants WHERE slug = $1",
			byName(&t), t.Slug)
		return nil
	})
	return t, n == 1, err
}

// ListTenants lists tenants by slug.
func (s *Tenants) ListTenants(ctx context.Context) ([]domain.Tenant, error) {
	var out []domain.Tenant
	err := s.DB.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		selectRows(tx, &out, "SELECT id, slug, name, created_at FROM tenants ORDER BY slug LIMIT $1", maxTenantList)
		return nil
	})
	return out, err
}

// AnyTenant reports whether the database holds a tenant.
func (s *Tenants) AnyTenant(ctx context.Context) (bool, error) {
	var any bool
	err := s.DB.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT EXISTS (SELECT 1 FROM tenants)", func(r pgx.Rows) error { return r.Scan(&any) })
		return nil
	})
	return any, err
}

// TenantBySlug finds one tenant.
func (s *Tenants) TenantBySlug(ctx context.Context, slug string) (domain.Tenant, error) {
	var t domain.Tenant
	found := false
	err := s.DB.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT id, slug, name, created_at FROM tenants WHERE slug = $1",
			func(r pgx.Rows) error { found = true; return byName(&t)(r) }, slug)
		return nil
	})
	if err == nil && !found {
		return t, domain.NotFound("no tenant with slug %q", slug)
	}
	return t, err
}

// CreateSubsidiary inserts sub unless the tenant has one of that name; a
// transaction-scoped advisory lock per tenant makes check-then-insert safe
// between concurrent operators.
func (s *Tenants) CreateSubsidiary(ctx context.Context, sub domain.Subsidiary) (domain.Subsidiary, bool, error) {
	created := false
	err := s.DB.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		tx.exec("SELECT pg_advisory_xact_lock(hashtext('subsidiaries:' || $1))", sub.TenantID.String())
		found, err := tx.queryRow(ctx, "SELECT id FROM subsidiaries WHERE tenant_id = $1 AND name = $2 ORDER BY id LIMIT 1",
			[]any{&sub.ID}, sub.TenantID, sub.Name)
		if err != nil || found {
			return err
		}
		created = true
		tx.exec("INSERT INTO subsidiaries (id, tenant_id, name) VALUES ($1, $2, $3)", sub.ID, sub.TenantID, sub.Name)
		return nil
	})
	return sub, created, err
}

// ListSubsidiaries lists a tenant's subsidiaries by name.
func (s *Tenants) ListSubsidiaries(ctx context.Context, tenantID uuid.UUID) ([]domain.Subsidiary, error) {
	var out []domain.Subsidiary
	err := s.DB.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT id, tenant_id, name FROM subsidiaries WHERE tenant_id = $1 ORDER BY name, id LIMIT $2", func(r pgx.Rows) error {
			var s domain.Subsidiary
			err := r.Scan(&s.ID, &s.TenantID, &s.Name)
			out = append(out, s)
			return err
		}, tenantID, maxTenantList)
		return nil
	})
	return out, err
}
