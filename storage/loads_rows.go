package storage

import (
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
)

// loadRow, stopRow and tripRow are the loads, stops and trips rows, written
// by the load writes and read by loadsWhere (which also fills the names it
// joins in: scanonly).
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
	CustomerName   *string             `bun:"customer_name,scanonly"`
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
	ID            uuid.UUID   `bun:"id,pk"`
	TenantID      uuid.UUID   `bun:"tenant_id"`
	LoadID        uuid.UUID   `bun:"load_id"`
	TripNumber    string      `bun:"trip_number"`
	Status        string      `bun:"status"`
	DriverIDs     []uuid.UUID `bun:"driver_ids,array"`
	TruckID       *uuid.UUID  `bun:"truck_id"`
	TrailerID     *uuid.UUID  `bun:"trailer_id"`
	CarrierID     *uuid.UUID  `bun:"carrier_id"`
	CreatedAt     time.Time   `bun:"created_at"`
	UpdatedAt     time.Time   `bun:"updated_at"`
}
