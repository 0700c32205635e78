package domain

import (
	"context"
	"strings"

	"github.com/google/uuid"
)

// LoadListInput is the loads list as asked for (GraphQL `loads`, the
// dispatch board): filters and Relay paging.
type LoadListInput struct {
	Statuses     []LoadStatus
	SubsidiaryID *string
	First        *int
	After        *string
}

// LoadListQuery is a validated loads list: newest load number first.
type LoadListQuery struct {
	Statuses     []LoadStatus // any of; empty: all
	SubsidiaryID *uuid.UUID
	Window       Window
}

// Validate applies the list's rules: first 1–100 (default 20), at most one
// of each status, a subsidiary id that is a UUID.
func (in LoadListInput) Validate() (LoadListQuery, error) {
	var v Validation
	q := LoadListQuery{Window: CheckCursorWindow(&v, in.First, in.After)}
	seen := map[LoadStatus]bool{}
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
	ListLoads(ctx context.Context, tenant uuid.UUID, q LoadListQuery) (Page[Load], error)
}

// ListLoads answers the loads list (load:read).
func (r *Reads) ListLoads(ctx context.Context, in LoadListInput) (Page[Load], error) {
	p, err := Authorize(ctx, OpReadLoad)
	if err != nil {
		return Page[Load]{}, err
	}
	q, err := in.Validate()
	if err != nil {
		return Page[Load]{}, err
	}
	return Answering[Load](q.Window)(r.Store.ListLoads(ctx, p.TenantID, q))
}
