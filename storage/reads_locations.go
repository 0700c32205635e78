package storage

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

var locationKeys = keyset{cols: []string{"l.date_created", "l.id"}, types: []string{"timestamptz", "uuid"}}

const locationCols = `l.id, l.name, l.company_number, l.type, l.status, l.street, l.city, l.state, l.zip_code,
	l.email, l.phone, l.fax, l.date_created, l.external_id`

type locationRow struct {
	ID            uuid.UUID `db:"id"`
	Name          string    `db:"name"`
	CompanyNumber string    `db:"company_number"`
	Type          string    `db:"type"`
	Status        string    `db:"status"`
	Street        string    `db:"street"`
	City          string    `db:"city"`
	State         string    `db:"state"`
	ZipCode       string    `db:"zip_code"`
	Email         []string  `db:"email"`
	Phone         []string  `db:"phone"`
	Fax           string    `db:"fax"`
	DateCreated   time.Time `db:"date_created"`
	ExternalID    *string   `db:"external_id"`
}

// SearchLocations answers docs/api-contract.md §4.5, oldest first.
func (r *Reads) SearchLocations(ctx context.Context, tenant uuid.UUID, q reads.LocationQuery) (domain.Page[reads.Location], error) {
	var page domain.Page[reads.Location]
	args := params{tenant}
	from := "FROM locations l WHERE l.tenant_id = $1"
	if len(q.Statuses) > 0 {
		st := make([]string, len(q.Statuses))
		for i, s := range q.Statuses {
			st[i] = string(s)
		}
		from += " AND l.status = ANY(" + args.bind(st) + ")"
	}
	if len(q.IDs) > 0 {
		from += " AND l.id = ANY(" + args.bind(q.IDs) + ")"
	}
	if q.CreatedAfter != nil {
		from += " AND l.date_created >= " + args.bind(q.CreatedAfter.UTC())
	}
	if q.CreatedBefore != nil {
		from += " AND l.date_created <= " + args.bind(q.CreatedBefore.UTC())
	}
	counted := len(args)
	win, err := locationKeys.window(q.Window, &args)
	if err != nil {
		return page, err
	}
	var rows []locationRow
	err = r.in(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		count(tx, &page.Total, from, args[:counted]...)
		selectRows(tx, &rows, "SELECT "+locationCols+" "+from+" "+win.where+" "+win.tail, args...)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		rows, page.HasMore = trim(rows, win.limit)
		notes := queueNotes(tx, tenant, ids(rows, func(l locationRow) *uuid.UUID { return &l.ID }))
		if err := tx.flush(ctx); err != nil {
			return err
		}
		page.Items = fillLocations(rows, *notes)
		return nil
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
	ID          uuid.UUID `db:"id"`
	LocationID  uuid.UUID `db:"location_id"`
	Description string    `db:"description"`
	NoteType    string    `db:"note_type"`
	Time        time.Time `db:"time"`
	Author      string    `db:"author"`
}

// queueNotes queues the read of the locations' notes, in one query.
func queueNotes(tx *Tx, tenant uuid.UUID, locIDs []uuid.UUID) *[]locationNoteRow {
	var notes []locationNoteRow
	if len(locIDs) > 0 {
		selectRows(tx, &notes, `SELECT id, location_id, description, note_type, time, author
			FROM location_notes WHERE tenant_id = $1 AND location_id = ANY($2) ORDER BY location_id, time, id`, tenant, locIDs)
	}
	return &notes
}

// fillLocations converts rows and attaches their notes.
func fillLocations(rows []locationRow, notes []locationNoteRow) []reads.Location {
	out := make([]reads.Location, len(rows))
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
	return out
}

// nonNil is s, or an empty list for nil (a JSON [] and a SQL '{}').
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
