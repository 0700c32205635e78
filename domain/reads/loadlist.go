package reads

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// LoadListInput is the loads list as asked for (GraphQL `loads`, the
// dispatch board): filters and Relay paging.
type LoadListInput struct {
	Statuses     []domain.LoadStatus
	SubsidiaryID *string
	First        *int
	After        *string
}

// LoadListQuery is a validated loads list: newest load number first.
type LoadListQuery struct {
	Statuses     []domain.LoadStatus // any of; empty: all
	SubsidiaryID *uuid.UUID
	Window       domain.Window
}

// Validate applies the list's rules: first 1–100 (default 20), at most one
// of each status, a subsidiary id that is a UUID.
func (in LoadListInput) Validate() (LoadListQuery, error) {
	var v domain.Validation
	q := LoadListQuery{Window: domain.CheckCursorWindow(&v, in.First, in.After)}
	seen := map[domain.LoadStatus]bool{}
	for _, s := range in.Statuses {
		if !seen[s] {
			seen[s] = true
			q.Statuses = append(q.Statuses, s)
		}
	}
	if s := strings.TrimSpace(deref(in.SubsidiaryID)); s != "" {
		id, err := uuid.Parse(s)
		if err != nil {
			v.Add("subsidiaryId", "subsidiaryId must be a UUID")
		}
		q.SubsidiaryID = &id
	}
	return q, v.Err()
}

// LoadLister is the storage port of the loads list.
type LoadLister interface {
	ListLoads(ctx context.Context, tenant uuid.UUID, q LoadListQuery) (domain.Page[domain.Load], error)
}

// ListLoads answers the loads list (load:read).
func (r *Service) ListLoads(ctx context.Context, in LoadListInput) (domain.Page[domain.Load], error) {
	p, err := domain.Authorize(ctx, OpReadLoad)
	if err != nil {
		return domain.Page[domain.Load]{}, err
	}
	q, err := in.Validate()
	if err != nil {
		return domain.Page[domain.Load]{}, err
	}
	return domain.Answering[domain.Load](q.Window)(r.Store.ListLoads(ctx, p.TenantID, q))
}
