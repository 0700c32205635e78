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

// Invoice is docs/api-contract.md §2.2.
type Invoice struct {
	ID                      uuid.UUID         `json:"Id"`
	Number                  string            `json:"Number"`
	Type                    InvoiceType       `json:"Type"`
	Status                  InvoiceStatus     `json:"Status"`
	CreatedDate             time.Time         `json:"CreatedDate"`
	InvoicedDate            *time.Time        `json:"InvoicedDate"`
	DueDate                 *time.Time        `json:"DueDate"`
	PaidDate                *time.Time        `json:"PaidDate"`
	LastSendDate            *time.Time        `json:"LastSendDate"`
	Total                   Money             `json:"Total"`
	AmountPaid              Money             `json:"AmountPaid"`
	RemainingBalance        Money             `json:"RemainingBalance"`
	OverPaymentAmount       Money             `json:"OverPaymentAmount"`
	IsSubmitted             bool              `json:"IsSubmitted"`
	SupplementalInvoiceType *string           `json:"SupplementalInvoiceType,omitempty"`
	Vendor                  *Vendor           `json:"Vendor"`
	Customer                *Customer         `json:"Customer"`
	LineItems               []InvoiceLineItem `json:"LineItems"`
	Loads                   []InvoiceLoad     `json:"Loads"`
	Payments                []InvoicePayment  `json:"Payments"`
	VendorID                *uuid.UUID        `json:"-"`
	CustomerID              *uuid.UUID        `json:"-"`
}

// Vendor is the invoice's issuer.
type Vendor struct {
	ID           uuid.UUID `json:"Id"`
	Name         string    `json:"Name"`
	RemitAddress Address   `json:"RemitAddress"`
	RemitEmail   string    `json:"RemitEmail"`
	RemitPhone   string    `json:"RemitPhone"`
}

// Customer is the invoice's (and the load's) customer.
type Customer struct {
	ID              uuid.UUID `json:"Id"`
	Name            string    `json:"Name"`
	EmailAddresses  []string  `json:"EmailAddresses"`
	PhoneNumbers    []string  `json:"PhoneNumbers"`
	BillingAddress  Address   `json:"BillingAddress"`
	ShippingAddress Address   `json:"ShippingAddress"`
}

// InvoiceLineItem is one charge on an invoice.
type InvoiceLineItem struct {
	ID         uuid.UUID `json:"Id"`
	Name       string    `json:"Name"`
	Amount     Money     `json:"Amount"`
	Rate       LineRate  `json:"Rate"`
	LoadNumber string    `json:"LoadNumber"`
	CustomerID string    `json:"CustomerId"`
	Category   string    `json:"Category"`
}

// LineRate is how a line item's amount was computed.
type LineRate struct {
	UnitOfMeasurement string  `json:"UnitOfMeasurement"`
	Units             Decimal `json:"Units"`
	Rate              Decimal `json:"Rate"`
}

// InvoiceLoad is a load an invoice bills.
type InvoiceLoad struct {
	ID             uuid.UUID `json:"Id"`
	LoadNumber     string    `json:"LoadNumber"`
	SubsidiaryName string    `json:"SubsidiaryName"`
	Source         string    `json:"Source"`
	OrderNumber    string    `json:"OrderNumber"`
	PONumber       string    `json:"PONumber"`
}

// InvoicePayment is one payment received against an invoice.
type InvoicePayment struct {
	ID               uuid.UUID `json:"Id"`
	PaymentDate      time.Time `json:"PaymentDate"`
	Amount           Money     `json:"Amount"`
	CheckNumber      string    `json:"CheckNumber"`
	PaymentReference string    `json:"PaymentReference"`
}

// Statement is a driver settlement statement (docs/api-contract.md §2.3).
type Statement struct {
	Number         int32           `json:"Number"`
	Status         StatementStatus `json:"Status"`
	StatementDate  Date            `json:"StatementDate"`
	PayPeriodID    string          `json:"PayPeriodId"`
	PayPeriodTitle string          `json:"PayPeriodTitle"`
	Driver         *Driver         `json:"Driver"`
	Totals         StatementTotals `json:"Totals"`
	LineItems      []StatementLine `json:"LineItems"`
	ID             uuid.UUID       `json:"-"`
	DriverID       uuid.UUID       `json:"-"`
}

// StatementTotals holds a statement's sums; a total with no value is absent.
type StatementTotals struct {
	GrossIncome      *Money   `json:"GrossIncome,omitempty"`
	NetIncome        *Money   `json:"NetIncome,omitempty"`
	LineHaul         *Money   `json:"LineHaul,omitempty"`
	Accessorials     *Money   `json:"Accessorials,omitempty"`
	Echecks          *Money   `json:"Echecks,omitempty"`
	ServiceFee       *Money   `json:"ServiceFee,omitempty"`
	DriverPayment    *Money   `json:"DriverPayment,omitempty"`
	Deductions       *Money   `json:"Deductions,omitempty"`
	Reimbursements   *Money   `json:"Reimbursements,omitempty"`
	Credits          *Money   `json:"Credits,omitempty"`
	Escrow           *Money   `json:"Escrow,omitempty"`
	Fuel             *Money   `json:"Fuel,omitempty"`
	Tolls            *Money   `json:"Tolls,omitempty"`
	Bonus            *Money   `json:"Bonus,omitempty"`
	Shortfall        *Money   `json:"Shortfall,omitempty"`
	DailyPay         *Money   `json:"DailyPay,omitempty"`
	DailyPerDiem     *Money   `json:"DailyPerDiem,omitempty"`
	StatementPerDiem *Money   `json:"StatementPerDiem,omitempty"`
	TripValue        *Money   `json:"TripValue,omitempty"`
	NumberOfTrips    *int     `json:"NumberOfTrips,omitempty"`
	LoadedMiles      *Decimal `json:"LoadedMiles,omitempty"`
	EmptyMiles       *Decimal `json:"EmptyMiles,omitempty"`
	HoursWorked      *Decimal `json:"HoursWorked,omitempty"`
}

// StatementLine is one line of a statement.
type StatementLine struct {
	Category        string           `json:"Category"`
	Title           string           `json:"Title"`
	PolicyName      *string          `json:"PolicyName"`
	TripNumber      *string          `json:"TripNumber"`
	LoadNumber      *string          `json:"LoadNumber"`
	Amount          Money            `json:"Amount"`
	TransactionType *TransactionType `json:"TransactionType"`
	SubLines        []SubLine        `json:"SubLines"`
}

// SubLine details a statement line.
type SubLine struct {
	Description string `json:"Description"`
	Quantity    string `json:"Quantity"`
	Rate        string `json:"Rate"`
	Amount      Money  `json:"Amount"`
}

// Trailer is docs/api-contract.md §2.4.
type Trailer struct {
	ID                    uuid.UUID          `json:"Id"`
	CreatedAt             time.Time          `json:"CreatedAt"`
	TrailerNum            *string            `json:"TrailerNum,omitempty"`
	Make                  *string            `json:"Make,omitempty"`
	LicenseNum            *string            `json:"LicenseNum,omitempty"`
	LicenseState          *string            `json:"LicenseState,omitempty"`
	VinNum                *string            `json:"VinNum,omitempty"`
	Status                *TrailerStatus     `json:"Status,omitempty"`
	SubsidiaryID          *uuid.UUID         `json:"SubsidiaryId,omitempty"`
	EquipmentType         *string            `json:"EquipmentType,omitempty"`
	EquipmentSize         *string            `json:"EquipmentSize,omitempty"`
	InsuranceCompany      *string            `json:"InsuranceCompany,omitempty"`
	InsurancePolicyNumber *string            `json:"InsurancePolicyNumber,omitempty"`
	Fleet                 *Fleet             `json:"Fleet,omitempty"`
	Year                  *int               `json:"Year,omitempty"`
	LicenseCountry        *string            `json:"LicenseCountry,omitempty"`
	PlateExpiresAt        *Date              `json:"PlateExpiresAt,omitempty"`
	LicenseExpiresAt      *Date              `json:"LicenseExpiresAt,omitempty"`
	InsuranceExpiresAt    *Date              `json:"InsuranceExpiresAt,omitempty"`
	InspectionExpiresAt   *Date              `json:"InspectionExpiresAt,omitempty"`
	Capacity              *TrailerCapacity   `json:"Capacity,omitempty"`
	Notes                 []Note             `json:"Notes,omitempty"`
	References            []TrailerReference `json:"References,omitempty"`
}

// Fleet groups equipment and drivers.
type Fleet struct {
	ID                  uuid.UUID `json:"Id"`
	Name                string    `json:"Name"`
	InvoiceNumberPrefix string    `json:"InvoiceNumberPrefix"`
}

// TrailerCapacity is what a trailer holds.
type TrailerCapacity struct {
	Pallets *int `json:"Pallets,omitempty"`
	Weight  *int `json:"Weight,omitempty"`
}

// Note is a dated remark (trailer notes; docs/architecture.md: the location note shape).
type Note struct {
	ID          string    `json:"Id"`
	Description string    `json:"Description"`
	NoteType    string    `json:"NoteType"`
	Time        time.Time `json:"Time"`
	User        string    `json:"User"`
}

// TrailerReference is an external reference on a trailer (docs/architecture.md).
type TrailerReference struct {
	Type  string `json:"Type"`
	Value string `json:"Value"`
}

// Location is docs/api-contract.md §2.5.
type Location struct {
	ID              uuid.UUID      `json:"Id"`
	Name            string         `json:"Name"`
	CompanyNumber   string         `json:"CompanyNumber"`
	Type            string         `json:"Type"`
	Status          LocationStatus `json:"Status"`
	PhysicalAddress Address        `json:"PhysicalAddress"`
	Email           []string       `json:"Email"`
	Phone           []string       `json:"Phone"`
	Fax             string         `json:"Fax"`
	DateCreated     time.Time      `json:"DateCreated"`
	ExternalID      *string        `json:"ExternalId"`
	Notes           []LocationNote `json:"Notes"`
}

// LocationNote is docs/api-contract.md §2.5's note; its id is spelled in lower case there.
type LocationNote struct {
	ID          uuid.UUID `json:"id"`
	Description string    `json:"Description"`
	NoteType    string    `json:"NoteType"`
	Time        time.Time `json:"Time"`
	User        string    `json:"User"`
}

// User is docs/api-contract.md §2.6.
type User struct {
	ID          uuid.UUID  `json:"Id"`
	UserName    string     `json:"UserName"`
	Name        string     `json:"Name"`
	Email       string     `json:"Email"`
	Phone       string     `json:"Phone"`
	UserType    string     `json:"UserType"`
	Role        string     `json:"Role"`
	CompanyCode string     `json:"CompanyCode"`
	Status      UserStatus `json:"Status"`
	Permissions []string   `json:"Permissions"`
	CreatedAt   time.Time  `json:"CreatedAt"`
	ModifiedAt  time.Time  `json:"ModifiedAt"`
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
	OrderNumber    string        `json:"OrderNumber"`
	PONumber       string        `json:"PONumber"`
	Source         string        `json:"Source"`
	Rate           Money         `json:"Rate"`
	Weight         *Decimal      `json:"Weight"`
	Commodity      string        `json:"Commodity"`
	EquipmentType  string        `json:"EquipmentType"`
	Stops          []Stop        `json:"Stops"`
	Trips          []Trip        `json:"Trips"`
	CreatedAt      time.Time     `json:"CreatedAt"`
	UpdatedAt      time.Time     `json:"UpdatedAt"`
	// CustomerName is for GraphQL (the dispatch board); not part of the
	// REST and event snapshot of docs/architecture.md.
	CustomerName *string `json:"-"`
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
