package storage

import (
	"context"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// Batch loaders: one query for any number of ids, answered as a map so that
// GraphQL dataloaders and the fill* helpers share them. Ids of another tenant
// are simply absent.

type driverRow struct {
	ID           uuid.UUID  `db:"id"`
	Name         string     `db:"name"`
	Type         string     `db:"type"`
	CompanyName  *string    `db:"company_name"`
	SubsidiaryID *uuid.UUID `db:"subsidiary_id"`
	FleetName    *string    `db:"fleet_name"`
}

func driversByIDs(ctx context.Context, tx *Tx, tenant uuid.UUID, idList []uuid.UUID) (map[uuid.UUID]domain.Driver, error) {
	out := map[uuid.UUID]domain.Driver{}
	if len(idList) == 0 {
		return out, nil
	}
	var rows []driverRow
	selectRows(tx, &rows, `SELECT d.id, d.name, d.type, d.company_name, d.subsidiary_id, f.name AS fleet_name
		FROM drivers d LEFT JOIN fleets f ON f.id = d.fleet_id AND f.tenant_id = d.tenant_id
		WHERE d.tenant_id = $1 AND d.id = ANY($2)`, tenant, idList)
	if err := tx.flush(ctx); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = domain.Driver{ID: r.ID, Name: r.Name, Type: domain.DriverType(r.Type), CompanyName: r.CompanyName, SubsidiaryID: r.SubsidiaryID, FleetName: r.FleetName}
	}
	return out, nil
}

// DriversByIDs loads drivers by id (statement → driver, trip → drivers).
func (r *Reads) DriversByIDs(ctx context.Context, tenant uuid.UUID, idList []uuid.UUID) (out map[uuid.UUID]domain.Driver, err error) {
	err = r.in(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		out, err = driversByIDs(ctx, tx, tenant, idList)
		return err
	})
	return out, err
}

// CarriersByIDs loads carriers by id (trip → carrier).
func (r *Reads) CarriersByIDs(ctx context.Context, tenant uuid.UUID, idList []uuid.UUID) (map[uuid.UUID]domain.Carrier, error) {
	out := map[uuid.UUID]domain.Carrier{}
	if len(idList) == 0 {
		return out, nil
	}
	var rows []struct {
		ID        uuid.UUID `db:"id"`
		Name      string    `db:"name"`
		MCNumber  string    `db:"mc_number"`
		DOTNumber string    `db:"dot_number"`
	}
	err := r.in(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		selectRows(tx, &rows, `SELECT id, name, mc_number, dot_number FROM carriers
			WHERE tenant_id = $1 AND id = ANY($2)`, tenant, idList)
		return nil
	})
	for _, c := range rows {
		out[c.ID] = domain.Carrier{ID: c.ID, Name: c.Name, MCNumber: c.MCNumber, DOTNumber: c.DOTNumber}
	}
	return out, err
}

// TrailersByIDs loads trailers by id (trip → trailer).
func (r *Reads) TrailersByIDs(ctx context.Context, tenant uuid.UUID, idList []uuid.UUID) (map[uuid.UUID]reads.Trailer, error) {
	out := map[uuid.UUID]reads.Trailer{}
	if len(idList) == 0 {
		return out, nil
	}
	var rows []trailerRow
	err := r.in(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		selectRows(tx, &rows, "SELECT "+trailerCols+" "+trailerFrom+" AND t.id = ANY($2)", tenant, idList)
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, t := range rows {
		tr, err := t.trailer()
		if err != nil {
			return nil, err
		}
		out[t.ID] = tr
	}
	return out, nil
}

// LocationsByIDs loads locations with their notes by id (stop → location).
func (r *Reads) LocationsByIDs(ctx context.Context, tenant uuid.UUID, idList []uuid.UUID) (map[uuid.UUID]reads.Location, error) {
	out := map[uuid.UUID]reads.Location{}
	if len(idList) == 0 {
		return out, nil
	}
	var locs []reads.Location
	err := r.in(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		var rows []locationRow
		selectRows(tx, &rows, "SELECT "+locationCols+" FROM locations l WHERE l.tenant_id = $1 AND l.id = ANY($2)", tenant, idList)
		notes := queueNotes(tx, tenant, idList)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		locs = fillLocations(rows, *notes)
		return nil
	})
	for _, l := range locs {
		out[l.ID] = l
	}
	return out, err
}

// LoadsByIDs loads full load snapshots by id (invoice → loads).
func (r *Reads) LoadsByIDs(ctx context.Context, tenant uuid.UUID, idList []uuid.UUID) (map[uuid.UUID]domain.Load, error) {
	out := map[uuid.UUID]domain.Load{}
	if len(idList) == 0 {
		return out, nil
	}
	loads, err := r.loadsByID(ctx, tenant, idList)
	for _, l := range loads {
		out[l.ID] = l
	}
	return out, err
}
