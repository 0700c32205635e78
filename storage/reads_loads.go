package storage

import (
	"context"
	"slices"
	"strconv"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// LoadByNumber answers docs/architecture.md's load read endpoint: the full snapshot, in
// one round trip.
func (r *Reads) LoadByNumber(ctx context.Context, tenant uuid.UUID, loadNumber string) (*domain.Load, error) {
	var read *loadsRead
	if err := r.DB.readTenant(ctx, tenant, func(_ context.Context, t *Tx) error {
		read = t.queueLoads(loadByNumber, loadNumber)
		return nil
	}); err != nil {
		return nil, err
	}
	loads := read.Loads()
	if len(loads) == 0 {
		return nil, domain.NotFound("load %s not found", loadNumber)
	}
	return &loads[0], nil
}

// loadsByID reads the snapshots of the loads idList names, in ascending load
// number, in one round trip.
func (r *Reads) loadsByID(ctx context.Context, tenant uuid.UUID, idList []uuid.UUID) ([]domain.Load, error) {
	if len(idList) == 0 {
		return nil, nil
	}
	var read *loadsRead
	if err := r.DB.readTenant(ctx, tenant, func(_ context.Context, t *Tx) error {
		read = t.queueLoads(loadsByIDs, idList)
		return nil
	}); err != nil {
		return nil, err
	}
	return read.Loads(), nil
}

// ListLoads answers the loads list: newest load number first, keyset paged
// on the load number; four queries for any page size.
func (r *Reads) ListLoads(ctx context.Context, tenant uuid.UUID, q reads.LoadListQuery) (domain.Page[domain.Load], error) {
	var page domain.Page[domain.Load]
	limit := q.Window.Limit
	if limit <= 0 || limit > domain.MaxPageSize {
		limit = domain.DefaultPageSize
	}
	// Constant texts per combination of filters, with bind parameters.
	from := "FROM loads l WHERE l.tenant_id = $1"
	args := []any{tenant}
	if len(q.Statuses) > 0 {
		st := make([]string, len(q.Statuses))
		for i, s := range q.Statuses {
			st[i] = string(s)
		}
		args = append(args, st)
		from += " AND l.status = ANY($" + strconv.Itoa(len(args)) + ")"
	}
	if q.SubsidiaryID != nil {
		args = append(args, *q.SubsidiaryID)
		from += " AND l.subsidiary_id = $" + strconv.Itoa(len(args))
	}
	where, pageArgs := "", args
	if q.Window.After != "" {
		parts, err := decodeCursor(q.Window.After, []string{"text"})
		if err != nil {
			return page, err
		}
		pageArgs = append(slices.Clip(args), parts[0])
		where = " AND l.load_number < $" + strconv.Itoa(len(pageArgs))
	}
	var idList []uuid.UUID
	pageArgs = append(slices.Clip(pageArgs), limit+1)
	if err := r.DB.readTenant(ctx, tenant, func(_ context.Context, t *Tx) error {
		t.query("SELECT count(*) "+from, func(rows pgx.Rows) error { return rows.Scan(&page.Total) }, args...)
		t.query("SELECT l.id "+from+where+" ORDER BY l.load_number DESC LIMIT $"+strconv.Itoa(len(pageArgs)), func(rows pgx.Rows) error {
			var id uuid.UUID
			err := rows.Scan(&id)
			idList = append(idList, id)
			return err
		}, pageArgs...)
		return nil
	}); err != nil {
		return domain.Page[domain.Load]{}, err
	}
	idList, page.HasMore = trim(idList, limit)
	loads, err := r.loadsByID(ctx, tenant, idList)
	if err != nil {
		return domain.Page[domain.Load]{}, err
	}
	slices.Reverse(loads) // the snapshots come in ascending load number
	page.Items = loads
	for _, l := range page.Items {
		page.Cursors = append(page.Cursors, encodeCursor(l.LoadNumber))
	}
	return page, nil
}
