package domain

import (
	"context"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Tenant is one customer of the service; every row belongs to one.
type Tenant struct {
	ID        uuid.UUID `json:"id"`
	Slug      string    `json:"slug"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"created_at"`
}

// Subsidiary is a company of a tenant; loads and webhooks belong to one.
type Subsidiary struct {
	ID       uuid.UUID `json:"id"`
	TenantID uuid.UUID `json:"tenant_id"`
	Name     string    `json:"name"`
}

// TenantStore is the persistence port of tenant administration. Create
// methods are idempotent by key (slug; tenant and name): they return the
// existing row and created=false when one exists.
type TenantStore interface {
	CreateTenant(ctx context.Context, t Tenant) (Tenant, bool, error)
	ListTenants(ctx context.Context) ([]Tenant, error)
	TenantBySlug(ctx context.Context, slug string) (Tenant, error)
	CreateSubsidiary(ctx context.Context, s Subsidiary) (Subsidiary, bool, error)
	ListSubsidiaries(ctx context.Context, tenantID uuid.UUID) ([]Subsidiary, error)
}

// Tenancy is operator-side tenant administration (the CLI), not an API face.
type Tenancy struct{ Store TenantStore }

var tenantSlug = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// maxNameLength bounds tenant and subsidiary names (characters).
const maxNameLength = 200

func checkName(name string) []string {
	switch {
	case strings.TrimSpace(name) == "":
		return []string{"is required"}
	case utf8.RuneCountInString(name) > maxNameLength:
		return []string{"at most 200 characters"}
	}
	return nil
}

// CreateTenant makes an empty tenant. Creating it again with the same name
// is a no-op (created false); with another name it is a conflict.
func (s *Tenancy) CreateTenant(ctx context.Context, slug, name string) (Tenant, bool, error) {
	name = strings.TrimSpace(name)
	fields := map[string][]string{}
	if !tenantSlug.MatchString(slug) {
		fields["slug"] = []string{"lowercase letters, digits and '-', starting with a letter or digit, at most 63 characters"}
	}
	if msgs := checkName(name); msgs != nil {
		fields["name"] = msgs
	}
	if len(fields) > 0 {
		return Tenant{}, false, &Error{Code: CodeInvalid, Message: "invalid tenant", Fields: fields}
	}
	t, created, err := s.Store.CreateTenant(ctx, Tenant{ID: uuid.New(), Slug: slug, Name: name})
	if err == nil && !created && t.Name != name {
		return t, false, &Error{Code: CodeConflict, Message: "tenant " + slug + " already exists with the name " + `"` + t.Name + `"`}
	}
	return t, created, err
}

// ListTenants lists every tenant by slug.
func (s *Tenancy) ListTenants(ctx context.Context) ([]Tenant, error) { return s.Store.ListTenants(ctx) }

// CreateSubsidiary adds a subsidiary to the tenant with that slug; a
// subsidiary of the same name is returned as it is (created false).
func (s *Tenancy) CreateSubsidiary(ctx context.Context, tenantSlug, name string) (Subsidiary, bool, error) {
	name = strings.TrimSpace(name)
	if msgs := checkName(name); msgs != nil {
		return Subsidiary{}, false, &Error{Code: CodeInvalid, Message: "invalid subsidiary", Fields: map[string][]string{"name": msgs}}
	}
	t, err := s.Store.TenantBySlug(ctx, tenantSlug)
	if err != nil {
		return Subsidiary{}, false, err
	}
	return s.Store.CreateSubsidiary(ctx, Subsidiary{ID: uuid.New(), TenantID: t.ID, Name: name})
}

// ListSubsidiaries lists the subsidiaries of the tenant with that slug.
func (s *Tenancy) ListSubsidiaries(ctx context.Context, tenantSlug string) ([]Subsidiary, error) {
	t, err := s.Store.TenantBySlug(ctx, tenantSlug)
	if err != nil {
		return nil, err
	}
	return s.Store.ListSubsidiaries(ctx, t.ID)
}
