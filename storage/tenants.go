package storage

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/uptrace/bun"

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
	created := false
	err := s.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		res, err := tx.ExecContext(ctx, "INSERT INTO tenants (id, slug, name) VALUES (?, ?, ?) ON CONFLICT (slug) DO NOTHING", t.ID, t.Slug, t.Name)
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		created = n == 1
		return tx.QueryRowContext(ctx, "SELECT id, slug, name, created_at FROM tenants WHERE slug = ?", t.Slug).Scan(&t.ID, &t.Slug, &t.Name, &t.CreatedAt)
	})
	return t, created, err
}

// ListTenants lists tenants by slug.
func (s *Tenants) ListTenants(ctx context.Context) ([]domain.Tenant, error) {
	var out []domain.Tenant
	err := s.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT id, slug, name, created_at FROM tenants ORDER BY slug LIMIT ?", maxTenantList)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var t domain.Tenant
			if err := rows.Scan(&t.ID, &t.Slug, &t.Name, &t.CreatedAt); err != nil {
				return err
			}
			out = append(out, t)
		}
		return rows.Err()
	})
	return out, err
}

// AnyTenant reports whether the database holds a tenant.
func (s *Tenants) AnyTenant(ctx context.Context) (bool, error) {
	var any bool
	err := s.DB.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT EXISTS (SELECT 1 FROM tenants)", func(r pgx.Rows) error { return r.Scan(&any) })
		return nil
	})
	return any, err
}

// TenantBySlug finds one tenant.
func (s *Tenants) TenantBySlug(ctx context.Context, slug string) (domain.Tenant, error) {
	var t domain.Tenant
	err := s.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		return tx.QueryRowContext(ctx, "SELECT id, slug, name, created_at FROM tenants WHERE slug = ?", slug).Scan(&t.ID, &t.Slug, &t.Name, &t.CreatedAt)
	})
	if errors.Is(err, sql.ErrNoRows) {
		return t, domain.NotFound("no tenant with slug %q", slug)
	}
	return t, err
}

// CreateSubsidiary inserts sub unless the tenant has one of that name; a
// transaction-scoped advisory lock per tenant makes check-then-insert safe
// between concurrent operators.
func (s *Tenants) CreateSubsidiary(ctx context.Context, sub domain.Subsidiary) (domain.Subsidiary, bool, error) {
	created := false
	err := s.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtext('subsidiaries:' || ?))", sub.TenantID.String()); err != nil {
			return err
		}
		var id uuid.UUID
		err := tx.QueryRowContext(ctx, "SELECT id FROM subsidiaries WHERE tenant_id = ? AND name = ? ORDER BY id LIMIT 1", sub.TenantID, sub.Name).Scan(&id)
		if err == nil {
			sub.ID = id
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		created = true
		_, err = tx.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, ?)", sub.ID, sub.TenantID, sub.Name)
		return err
	})
	return sub, created, err
}

// ListSubsidiaries lists a tenant's subsidiaries by name.
func (s *Tenants) ListSubsidiaries(ctx context.Context, tenantID uuid.UUID) ([]domain.Subsidiary, error) {
	var out []domain.Subsidiary
	err := s.DB.InTenant(ctx, tenantID, func(ctx context.Context, tx bun.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT id, tenant_id, name FROM subsidiaries WHERE tenant_id = ? ORDER BY name, id LIMIT ?", tenantID, maxTenantList)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var s domain.Subsidiary
			if err := rows.Scan(&s.ID, &s.TenantID, &s.Name); err != nil {
				return err
			}
			out = append(out, s)
		}
		return rows.Err()
	})
	return out, err
}
