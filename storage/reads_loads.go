package storage

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/haulgraph/haulgraph/domain"
)

type loadRow struct {
	ID             uuid.UUID           `bun:"id"`
	LoadNumber     string              `bun:"load_number"`
	Status         string              `bun:"status"`
	BillingStatus  string              `bun:"billing_status"`
	SubsidiaryID   uuid.UUID           `bun:"subsidiary_id"`
	SubsidiaryName string              `bun:"subsidiary_name"`
	CustomerID     *uuid.UUID          `bun:"customer_id"`
	OrderNumber    string              `bun:"order_number"`
	PONumber       string              `bun:"po_number"`
	Source         string              `bun:"source"`
	Rate           decimal.Decimal     `bun:"rate"`
	Currency       int                 `bun:"currency"`
	Weight         decimal.NullDecimal `bun:"weight"`
	Commodity      string              `bun:"commodity"`
	EquipmentType  string              `bun:"equipment_type"`
	CreatedAt      time.Time           `bun:"created_at"`
	UpdatedAt      time.Time           `bun:"updated_at"`
}

type stopRow struct {
	LoadID           uuid.UUID  `bun:"load_id"`
	Sequence         int        `bun:"sequence"`
	Type             string     `bun:"type"`
	LocationID       *uuid.UUID `bun:"location_id"`
	Name             string     `bun:"name"`
	Street           string     `bun:"street"`
	City             string     `bun:"city"`
	State            string     `bun:"state"`
	ZipCode          string     `bun:"zip_code"`
	AppointmentStart *time.Time `bun:"appointment_start"`
	AppointmentEnd   *time.Time `bun:"appointment_end"`
	ArrivedAt        *time.Time `bun:"arrived_at"`
	DepartedAt       *time.Time `bun:"departed_at"`
}

type tripRow struct {
	ID         uuid.UUID   `bun:"id"`
	LoadID     uuid.UUID   `bun:"load_id"`
	TripNumber string      `bun:"trip_number"`
	Status     string      `bun:"status"`
	DriverIDs  []uuid.UUID `bun:"driver_ids,array"`
	TruckID    *uuid.UUID  `bun:"truck_id"`
	TrailerID  *uuid.UUID  `bun:"trailer_id"`
	CarrierID  *uuid.UUID  `bun:"carrier_id"`
}

// LoadByNumber answers DESIGN.md's load read endpoint: the full snapshot.
func (r *Reads) LoadByNumber(ctx context.Context, tenant uuid.UUID, loadNumber string) (*domain.Load, error) {
	var loads []domain.Load
	err := r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		var err error
		loads, err = loadsWhere(ctx, tx, tenant, "l.load_number = ?", loadNumber)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(loads) == 0 {
		return nil, domain.NotFound("load %s not found", loadNumber)
	}
	return &loads[0], nil
}

// loadsWhere reads load snapshots matching cond with their stops and trips:
// three queries for any number of loads.
func loadsWhere(ctx context.Context, tx bun.Tx, tenant uuid.UUID, cond string, args ...any) ([]domain.Load, error) {
	var rows []loadRow
	if err := selectRows(ctx, tx, &rows, `SELECT l.id, l.load_number, l.status, l.billing_status, l.subsidiary_id,
		coalesce(s.name, '') AS subsidiary_name, l.customer_id, l.order_number, l.po_number, l.source, l.rate,
		l.currency, l.weight, l.commodity, l.equipment_type, l.created_at, l.updated_at
		FROM loads l LEFT JOIN subsidiaries s ON s.id = l.subsidiary_id AND s.tenant_id = l.tenant_id
		WHERE l.tenant_id = ? AND `+cond+" ORDER BY l.load_number", append([]any{tenant}, args...)...); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	loadIDs := make([]uuid.UUID, len(rows))
	for i, l := range rows {
		loadIDs[i] = l.ID
	}
	var stops []stopRow
	if err := selectRows(ctx, tx, &stops, `SELECT load_id, sequence, type, location_id, name, street, city, state,
		zip_code, appointment_start, appointment_end, arrived_at, departed_at FROM stops
		WHERE tenant_id = ? AND load_id = ANY(?) ORDER BY load_id, sequence`, tenant, pgdialect.Array(loadIDs)); err != nil {
		return nil, err
	}
	var trips []tripRow
	if err := selectRows(ctx, tx, &trips, `SELECT id, load_id, trip_number, status, driver_ids, truck_id, trailer_id,
		carrier_id FROM trips WHERE tenant_id = ? AND load_id = ANY(?) ORDER BY load_id, trip_number, id`,
		tenant, pgdialect.Array(loadIDs)); err != nil {
		return nil, err
	}
	stopsBy := map[uuid.UUID][]domain.Stop{}
	for _, s := range stops {
		stopsBy[s.LoadID] = append(stopsBy[s.LoadID], domain.Stop{
			Sequence: s.Sequence, Type: domain.StopType(s.Type), LocationID: s.LocationID, Name: s.Name,
			Address:          domain.Address{Street: s.Street, City: s.City, State: s.State, ZipCode: s.ZipCode},
			AppointmentStart: s.AppointmentStart, AppointmentEnd: s.AppointmentEnd, ArrivedAt: s.ArrivedAt, DepartedAt: s.DepartedAt,
		})
	}
	tripsBy := map[uuid.UUID][]domain.Trip{}
	for _, t := range trips {
		d := t.DriverIDs
		if d == nil {
			d = []uuid.UUID{}
		}
		tripsBy[t.LoadID] = append(tripsBy[t.LoadID], domain.Trip{
			ID: t.ID, TripNumber: t.TripNumber, Status: t.Status, DriverIDs: d, TruckID: t.TruckID,
			TrailerID: t.TrailerID, CarrierID: t.CarrierID, LoadID: t.LoadID,
		})
	}
	out := make([]domain.Load, len(rows))
	for i, l := range rows {
		var w *decimal.Decimal
		if l.Weight.Valid {
			w = &l.Weight.Decimal
		}
		out[i] = domain.Load{
			ID: l.ID, LoadNumber: l.LoadNumber, Status: domain.LoadStatus(l.Status), BillingStatus: domain.BillingStatus(l.BillingStatus),
			SubsidiaryID: l.SubsidiaryID, SubsidiaryName: l.SubsidiaryName, CustomerID: l.CustomerID,
			OrderNumber: l.OrderNumber, PONumber: l.PONumber, Source: l.Source, Rate: domain.NewMoney(l.Rate, l.Currency),
			Weight: w, Commodity: l.Commodity, EquipmentType: l.EquipmentType,
			Stops: stopsBy[l.ID], Trips: tripsBy[l.ID], CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt,
		}
		if out[i].Stops == nil {
			out[i].Stops = []domain.Stop{}
		}
		if out[i].Trips == nil {
			out[i].Trips = []domain.Trip{}
		}
	}
	return out, nil
}
