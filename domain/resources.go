package domain

import (
	"time"

	"github.com/google/uuid"
)

// Address is docs/api-contract.md §2.1's postal address.
type Address struct {
	Street  string `json:"Street"`
	City    string `json:"City"`
	State   string `json:"State"`
	ZipCode string `json:"ZipCode"`
}

// Document is docs/api-contract.md §2.7's uploaded document record.
type Document struct {
	ID             uuid.UUID          `json:"id"`
	AttachmentPath string             `json:"AttachmentPath"`
	AttachmentType string             `json:"AttachmentType"`
	AttachmentSize int64              `json:"AttachmentSize"`
	UploadedAt     time.Time          `json:"UploadedAt"`
	ParentID       string             `json:"ParentId"`
	ParentType     DocumentParentType `json:"ParentType"`
	ContentType    string             `json:"-"`
	BlobKey        string             `json:"-"`
}

// Load is the load snapshot of docs/architecture.md: the read endpoint's answer and
// data.load of every load event.
type Load struct {
	ID             uuid.UUID     `json:"Id"`
	LoadNumber     string        `json:"LoadNumber"`
	Status         LoadStatus    `json:"Status"`
	BillingStatus  BillingStatus `json:"BillingStatus"`
	SubsidiaryID   uuid.UUID     `json:"SubsidiaryId"`
	SubsidiaryName string        `json:"SubsidiaryName"`
	CustomerID     *uuid.UUID    `json:"CustomerId"`
	// CustomerName is the customer's name as the load's reads show it
	// (null without a customer): events carry it, so that a board or a
	// receiver need not look it up.
	CustomerName  *string   `json:"CustomerName"`
	OrderNumber   string    `json:"OrderNumber"`
	PONumber      string    `json:"PONumber"`
	Source        string    `json:"Source"`
	Rate          Money     `json:"Rate"`
	Weight        *Decimal  `json:"Weight"`
	Commodity     string    `json:"Commodity"`
	EquipmentType string    `json:"EquipmentType"`
	Stops         []Stop    `json:"Stops"`
	Trips         []Trip    `json:"Trips"`
	CreatedAt     time.Time `json:"CreatedAt"`
	UpdatedAt     time.Time `json:"UpdatedAt"`
}

// Stop is a pickup or delivery of a load.
type Stop struct {
	Sequence         int        `json:"Sequence"`
	Type             StopType   `json:"Type"`
	LocationID       *uuid.UUID `json:"LocationId"`
	Name             string     `json:"Name"`
	Address          Address    `json:"Address"`
	AppointmentStart *time.Time `json:"AppointmentStart"`
	AppointmentEnd   *time.Time `json:"AppointmentEnd"`
	ArrivedAt        *time.Time `json:"ArrivedAt"`
	DepartedAt       *time.Time `json:"DepartedAt"`
}

// Trip is a movement of a load by drivers (or a carrier) with equipment.
type Trip struct {
	ID         uuid.UUID   `json:"Id"`
	TripNumber string      `json:"TripNumber"`
	Status     string      `json:"Status"`
	DriverIDs  []uuid.UUID `json:"DriverIds"`
	TruckID    *uuid.UUID  `json:"TruckId"`
	TrailerID  *uuid.UUID  `json:"TrailerId"`
	CarrierID  *uuid.UUID  `json:"CarrierId"`
	LoadID     uuid.UUID   `json:"-"`
}

// Driver is a driver record (relation target of statements and trips).
type Driver struct {
	ID           uuid.UUID  `json:"Id"`
	Name         string     `json:"Name"`
	Type         DriverType `json:"Type"`
	CompanyName  *string    `json:"CompanyName"`
	SubsidiaryID *uuid.UUID `json:"SubsidiaryId"`
	FleetName    *string    `json:"FleetName"`
}

// Carrier is a carrier record (relation target of trips).
type Carrier struct {
	ID        uuid.UUID `json:"Id"`
	Name      string    `json:"Name"`
	MCNumber  string    `json:"McNumber"`
	DOTNumber string    `json:"DotNumber"`
}
