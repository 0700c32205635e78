package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
)

// loadRow, stopRow and tripRow are the rows of a load snapshot, used both to
// insert and to read inside a write transaction.
type loadRow struct {
	bun.BaseModel  `bun:"table:loads"`
	ID             uuid.UUID           `bun:"id,pk"`
	TenantID       uuid.UUID           `bun:"tenant_id"`
	LoadNumber     string              `bun:"load_number"`
	Status         string              `bun:"status"`
	BillingStatus  string              `bun:"billing_status"`
	SubsidiaryID   uuid.UUID           `bun:"subsidiary_id"`
	SubsidiaryName string              `bun:"subsidiary_name,scanonly"`
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
	bun.BaseModel    `bun:"table:stops"`
	ID               uuid.UUID  `bun:"id,pk"`
	TenantID         uuid.UUID  `bun:"tenant_id"`
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
	bun.BaseModel `bun:"table:trips"`
	ID            uuid.UUID  `bun:"id,pk"`
	TenantID      uuid.UUID  `bun:"tenant_id"`
	LoadID        uuid.UUID  `bun:"load_id"`
	TripNumber    string     `bun:"trip_number"`
	Status        string     `bun:"status"`
	DriverIDs     []string   `bun:"driver_ids,array"`
	TruckID       *uuid.UUID `bun:"truck_id"`
	TrailerID     *uuid.UUID `bun:"trailer_id"`
	CarrierID     *uuid.UUID `bun:"carrier_id"`
	CreatedAt     time.Time  `bun:"created_at"`
	UpdatedAt     time.Time  `bun:"updated_at"`
}

// loadSnapshot reads the load read endpoint's snapshot of one load inside tx:
// three queries (load, stops, trips), whatever the number of stops and trips.
func loadSnapshot(ctx context.Context, tx bun.IDB, tenant, id uuid.UUID) (*domain.Load, error) {
	var row loadRow
	err := tx.NewRaw(`SELECT l.*, s.name AS subsidiary_name FROM loads l
		JOIN subsidiaries s ON s.id = l.subsidiary_id AND s.tenant_id = l.tenant_id
		WHERE l.tenant_id = ? AND l.id = ?`, tenant, id).Scan(ctx, &row)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.NotFound("load not found")
	}
	if err != nil {
		return nil, err
	}
	var stops []stopRow
	if err := tx.NewSelect().Model(&stops).Where("tenant_id = ? AND load_id = ?", tenant, id).Order("sequence").Scan(ctx); err != nil {
		return nil, err
	}
	var trips []tripRow
	if err := tx.NewSelect().Model(&trips).Where("tenant_id = ? AND load_id = ?", tenant, id).Order("trip_number", "id").Scan(ctx); err != nil {
		return nil, err
	}
	l := &domain.Load{ID: row.ID, LoadNumber: row.LoadNumber, Status: domain.LoadStatus(row.Status),
		BillingStatus: domain.BillingStatus(row.BillingStatus), SubsidiaryID: row.SubsidiaryID, SubsidiaryName: row.SubsidiaryName,
		CustomerID: row.CustomerID, OrderNumber: row.OrderNumber, PONumber: row.PONumber, Source: row.Source,
		Rate: domain.NewMoney(row.Rate, row.Currency), Commodity: row.Commodity, EquipmentType: row.EquipmentType,
		CreatedAt: row.CreatedAt.UTC(), UpdatedAt: row.UpdatedAt.UTC(), Stops: make([]domain.Stop, 0, len(stops)),
		Trips: make([]domain.Trip, 0, len(trips))}
	if row.Weight.Valid {
		w := row.Weight.Decimal
		l.Weight = &w
	}
	for _, s := range stops {
		l.Stops = append(l.Stops, domain.Stop{Sequence: s.Sequence, Type: domain.StopType(s.Type), LocationID: s.LocationID,
			Name: s.Name, Address: domain.Address{Street: s.Street, City: s.City, State: s.State, ZipCode: s.ZipCode},
			AppointmentStart: utc(s.AppointmentStart), AppointmentEnd: utc(s.AppointmentEnd),
			ArrivedAt: utc(s.ArrivedAt), DepartedAt: utc(s.DepartedAt)})
	}
	for _, t := range trips {
		trip := domain.Trip{ID: t.ID, TripNumber: t.TripNumber, Status: t.Status, DriverIDs: make([]uuid.UUID, 0, len(t.DriverIDs)),
			TruckID: t.TruckID, TrailerID: t.TrailerID, CarrierID: t.CarrierID, LoadID: t.LoadID}
		for _, d := range t.DriverIDs {
			id, err := uuid.Parse(d)
			if err != nil {
				return nil, err
			}
			trip.DriverIDs = append(trip.DriverIDs, id)
		}
		l.Trips = append(l.Trips, trip)
	}
	return l, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
