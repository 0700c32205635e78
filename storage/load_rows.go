package storage

import (
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
)

// The rows of a load snapshot read (loadSQL), read by name (trips are
// domain.Trip as they are).

type loadRow struct {
	ID             uuid.UUID            `db:"id"`
	LoadNumber     string               `db:"load_number"`
	Status         domain.LoadStatus    `db:"status"`
	BillingStatus  domain.BillingStatus `db:"billing_status"`
	SubsidiaryID   uuid.UUID            `db:"subsidiary_id"`
	SubsidiaryName string               `db:"subsidiary_name"`
	CustomerID     *uuid.UUID           `db:"customer_id"`
	CustomerName   *string              `db:"customer_name"`
	OrderNumber    string               `db:"order_number"`
	PONumber       string               `db:"po_number"`
	Source         string               `db:"source"`
	Rate           numeric              `db:"rate"`
	Currency       int                  `db:"currency"`
	Weight         numeric              `db:"weight"`
	Commodity      string               `db:"commodity"`
	EquipmentType  string               `db:"equipment_type"`
	CreatedAt      time.Time            `db:"created_at"`
	UpdatedAt      time.Time            `db:"updated_at"`
}

func (r loadRow) load() domain.Load {
	return domain.Load{ID: r.ID, LoadNumber: r.LoadNumber, Status: r.Status, BillingStatus: r.BillingStatus,
		SubsidiaryID: r.SubsidiaryID, SubsidiaryName: r.SubsidiaryName, CustomerID: r.CustomerID, CustomerName: r.CustomerName,
		OrderNumber: r.OrderNumber, PONumber: r.PONumber, Source: r.Source, Rate: domain.NewMoney(r.Rate.dec(), r.Currency),
		Weight: domain.DecimalPtr(r.Weight.decPtr()), Commodity: r.Commodity, EquipmentType: r.EquipmentType,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
}

type stopRow struct {
	LoadID           uuid.UUID       `db:"load_id"`
	Sequence         int             `db:"sequence"`
	Type             domain.StopType `db:"type"`
	LocationID       *uuid.UUID      `db:"location_id"`
	Name             string          `db:"name"`
	Street           string          `db:"street"`
	City             string          `db:"city"`
	State            string          `db:"state"`
	ZipCode          string          `db:"zip_code"`
	AppointmentStart *time.Time      `db:"appointment_start"`
	AppointmentEnd   *time.Time      `db:"appointment_end"`
	ArrivedAt        *time.Time      `db:"arrived_at"`
	DepartedAt       *time.Time      `db:"departed_at"`
}

func (r stopRow) stop() domain.Stop {
	return domain.Stop{Sequence: r.Sequence, Type: r.Type, LocationID: r.LocationID, Name: r.Name,
		Address:          domain.Address{Street: r.Street, City: r.City, State: r.State, ZipCode: r.ZipCode},
		AppointmentStart: r.AppointmentStart, AppointmentEnd: r.AppointmentEnd, ArrivedAt: r.ArrivedAt, DepartedAt: r.DepartedAt}
}
