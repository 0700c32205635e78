package storage

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// Batch loaders: one query for any number of ids, answered as a map so that
// GraphQL dataloaders and the fill* helpers share them. Ids of another tenant
// are simply absent.

type driverRow struct {
	ID           uuid.UUID  `bun:"id"`
	Name         string     `bun:"name"`
	Type         string     `bun:"type"`
	CompanyName  *string    `bun:"company_name"`
	SubsidiaryID *uuid.UUID `bun:"subsidiary_id"`
	FleetName    *string    `bun:"fleet_name"`
}

func driversByIDs(ctx context.Context, tx bun.Tx, tenant uuid.UUID, idList []uuid.UUID) (map[uuid.UUID]domain.Driver, error) {
	out := map[uuid.UUID]domain.Driver{}
	if len(idList) == 0 {
		return out, nil
	}
	var rows []driverRow
	if err := selectRows(ctx, tx, &rows, `SELECT d.id, d.name, d.type, d.company_name, d.subsidiary_id, f.name AS fleet_name
		FROM drivers d LEFT JOIN fleets f ON f.id = d.fleet_id AND f.tenant_id = d.tenant_id
		WHERE d.tenant_id = ? AND d.id = ANY(?)`, tenant, pgdialect.Array(idList)); err != nil {
		return nil, err
	}
	for _, r := range rows {
		out[r.ID] = domain.Driver{ID: r.ID, Name: r.Name, Type: domain.DriverType(r.Type), CompanyName: r.CompanyName, SubsidiaryID: r.SubsidiaryID, FleetName: r.FleetName}
	}
	return out, nil
}

// DriversByIDs loads drivers by id (statement → driver, trip → drivers).
func (r *Reads) DriversByIDs(ctx context.Context, tenant uuid.UUID, idList []uuid.UUID) (out map[uuid.UUID]domain.Driver, err error) {
	err = r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
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
		ID        uuid.UUID `bun:"id"`
		Name      string    `bun:"name"`
		MCNumber  string    `bun:"mc_number"`
		DOTNumber string    `bun:"dot_number"`
	}
	err := r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		return selectRows(ctx, tx, &rows, `SELECT id, name, mc_number, dot_number FROM carriers
			WHERE tenant_id = ? AND id = ANY(?)`, tenant, pgdialect.Array(idList))
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
	err := r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		return selectRows(ctx, tx, &rows, "SELECT "+trailerCols+" "+trailerFrom+" AND t.id = ANY(?)", tenant, pgdialect.Array(idList))
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
	err := r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		var rows []locationRow
		if err := selectRows(ctx, tx, &rows, "SELECT "+locationCols+" FROM locations l WHERE l.tenant_id = ? AND l.id = ANY(?)", tenant, pgdialect.Array(idList)); err != nil {
			return err
		}
		var err error
		locs, err = fillLocations(ctx, tx, tenant, rows)
		return err
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
