package storage

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

var locationKeys = keyset{cols: []string{"l.date_created", "l.id"}, types: []string{"timestamptz", "uuid"}}

const locationCols = `l.id, l.name, l.company_number, l.type, l.status, l.street, l.city, l.state, l.zip_code,
	l.email, l.phone, l.fax, l.date_created, l.external_id`

type locationRow struct {
	ID            uuid.UUID `bun:"id"`
	Name          string    `bun:"name"`
	CompanyNumber string    `bun:"company_number"`
	Type          string    `bun:"type"`
	Status        string    `bun:"status"`
	Street        string    `bun:"street"`
	City          string    `bun:"city"`
	State         string    `bun:"state"`
	ZipCode       string    `bun:"zip_code"`
	Email         []string  `bun:"email,array"`
	Phone         []string  `bun:"phone,array"`
	Fax           string    `bun:"fax"`
	DateCreated   time.Time `bun:"date_created"`
	ExternalID    *string   `bun:"external_id"`
}

// SearchLocations answers docs/api-contract.md §4.5, oldest first.
func (r *Reads) SearchLocations(ctx context.Context, tenant uuid.UUID, q reads.LocationQuery) (domain.Page[reads.Location], error) {
	var page domain.Page[reads.Location]
	win, err := locationKeys.window(q.Window)
	if err != nil {
		return page, err
	}
	from := "FROM locations l WHERE l.tenant_id = ?"
	args := []any{tenant}
	if len(q.Statuses) > 0 {
		st := make([]string, len(q.Statuses))
		for i, s := range q.Statuses {
			st[i] = string(s)
		}
		from += " AND l.status = ANY(?)"
		args = append(args, pgdialect.Array(st))
	}
	if len(q.IDs) > 0 {
		from += " AND l.id = ANY(?)"
		args = append(args, pgdialect.Array(q.IDs))
	}
	if q.CreatedAfter != nil {
		from += " AND l.date_created >= ?"
		args = append(args, q.CreatedAfter.UTC())
	}
	if q.CreatedBefore != nil {
		from += " AND l.date_created <= ?"
		args = append(args, q.CreatedBefore.UTC())
	}
	var rows []locationRow
	err = r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		if page.Total, err = count(ctx, tx, from, args...); err != nil {
			return err
		}
		if err := selectRows(ctx, tx, &rows, "SELECT "+locationCols+" "+from+" "+win.where+" "+win.tail, append(append([]any{}, args...), win.args...)...); err != nil {
			return err
		}
		rows, page.HasMore = trim(rows, win.limit)
		page.Items, err = fillLocations(ctx, tx, tenant, rows)
		return err
	})
	if err != nil {
		return domain.Page[reads.Location]{}, err
	}
	for _, l := range page.Items {
		page.Cursors = append(page.Cursors, encodeCursor(l.DateCreated.UTC().Format(time.RFC3339Nano), l.ID.String()))
	}
	return page, nil
}

type locationNoteRow struct {
	ID          uuid.UUID `bun:"id"`
	LocationID  uuid.UUID `bun:"location_id"`
	Description string    `bun:"description"`
	NoteType    string    `bun:"note_type"`
	Time        time.Time `bun:"time"`
	Author      string    `bun:"author"`
}

// fillLocations converts rows and attaches their notes with one query.
func fillLocations(ctx context.Context, tx bun.Tx, tenant uuid.UUID, rows []locationRow) ([]reads.Location, error) {
	out := make([]reads.Location, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	locIDs := make([]uuid.UUID, len(rows))
	for i, l := range rows {
		locIDs[i] = l.ID
	}
	var notes []locationNoteRow
	if err := selectRows(ctx, tx, &notes, `SELECT id, location_id, description, note_type, time, author
		FROM location_notes WHERE tenant_id = ? AND location_id = ANY(?) ORDER BY location_id, time, id`,
		tenant, pgdialect.Array(locIDs)); err != nil {
		return nil, err
	}
	byLoc := map[uuid.UUID][]reads.LocationNote{}
	for _, n := range notes {
		byLoc[n.LocationID] = append(byLoc[n.LocationID], reads.LocationNote{ID: n.ID, Description: n.Description, NoteType: n.NoteType, Time: n.Time, User: n.Author})
	}
	for i, l := range rows {
		ns := byLoc[l.ID]
		if ns == nil {
			ns = []reads.LocationNote{}
		}
		out[i] = reads.Location{
			ID: l.ID, Name: l.Name, CompanyNumber: l.CompanyNumber, Type: l.Type, Status: reads.LocationStatus(l.Status),
			PhysicalAddress: domain.Address{Street: l.Street, City: l.City, State: l.State, ZipCode: l.ZipCode},
			Email:           nonNil(l.Email), Phone: nonNil(l.Phone), Fax: l.Fax, DateCreated: l.DateCreated,
			ExternalID: l.ExternalID, Notes: ns,
		}
	}
	return out, nil
}

// nonNil is s, or an empty list for nil (a JSON [] and a SQL '{}').
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
