package reads

import (
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

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
	Total                   domain.Money      `json:"Total"`
	AmountPaid              domain.Money      `json:"AmountPaid"`
	RemainingBalance        domain.Money      `json:"RemainingBalance"`
	OverPaymentAmount       domain.Money      `json:"OverPaymentAmount"`
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
	ID           uuid.UUID      `json:"Id"`
	Name         string         `json:"Name"`
	RemitAddress domain.Address `json:"RemitAddress"`
	RemitEmail   string         `json:"RemitEmail"`
	RemitPhone   string         `json:"RemitPhone"`
}

// Customer is the invoice's (and the load's) customer.
type Customer struct {
	ID              uuid.UUID      `json:"Id"`
	Name            string         `json:"Name"`
	EmailAddresses  []string       `json:"EmailAddresses"`
	PhoneNumbers    []string       `json:"PhoneNumbers"`
	BillingAddress  domain.Address `json:"BillingAddress"`
	ShippingAddress domain.Address `json:"ShippingAddress"`
}

// InvoiceLineItem is one charge on an invoice.
type InvoiceLineItem struct {
	ID         uuid.UUID    `json:"Id"`
	Name       string       `json:"Name"`
	Amount     domain.Money `json:"Amount"`
	Rate       LineRate     `json:"Rate"`
	LoadNumber string       `json:"LoadNumber"`
	CustomerID string       `json:"CustomerId"`
	Category   string       `json:"Category"`
}

// LineRate is how a line item's amount was computed.
type LineRate struct {
	UnitOfMeasurement string         `json:"UnitOfMeasurement"`
	Units             domain.Decimal `json:"Units"`
	Rate              domain.Decimal `json:"Rate"`
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
	ID               uuid.UUID    `json:"Id"`
	PaymentDate      time.Time    `json:"PaymentDate"`
	Amount           domain.Money `json:"Amount"`
	CheckNumber      string       `json:"CheckNumber"`
	PaymentReference string       `json:"PaymentReference"`
}

// Statement is a driver settlement statement (docs/api-contract.md §2.3).
type Statement struct {
	Number         int32           `json:"Number"`
	Status         StatementStatus `json:"Status"`
	StatementDate  domain.Date     `json:"StatementDate"`
	PayPeriodID    string          `json:"PayPeriodId"`
	PayPeriodTitle string          `json:"PayPeriodTitle"`
	Driver         *domain.Driver  `json:"Driver"`
	Totals         StatementTotals `json:"Totals"`
	LineItems      []StatementLine `json:"LineItems"`
	ID             uuid.UUID       `json:"-"`
	DriverID       uuid.UUID       `json:"-"`
}

// StatementTotals holds a statement's sums; a total with no value is absent.
type StatementTotals struct {
	GrossIncome      *domain.Money   `json:"GrossIncome,omitempty"`
	NetIncome        *domain.Money   `json:"NetIncome,omitempty"`
	LineHaul         *domain.Money   `json:"LineHaul,omitempty"`
	Accessorials     *domain.Money   `json:"Accessorials,omitempty"`
	Echecks          *domain.Money   `json:"Echecks,omitempty"`
	ServiceFee       *domain.Money   `json:"ServiceFee,omitempty"`
	DriverPayment    *domain.Money   `json:"DriverPayment,omitempty"`
	Deductions       *domain.Money   `json:"Deductions,omitempty"`
	Reimbursements   *domain.Money   `json:"Reimbursements,omitempty"`
	Credits          *domain.Money   `json:"Credits,omitempty"`
	Escrow           *domain.Money   `json:"Escrow,omitempty"`
	Fuel             *domain.Money   `json:"Fuel,omitempty"`
	Tolls            *domain.Money   `json:"Tolls,omitempty"`
	Bonus            *domain.Money   `json:"Bonus,omitempty"`
	Shortfall        *domain.Money   `json:"Shortfall,omitempty"`
	DailyPay         *domain.Money   `json:"DailyPay,omitempty"`
	DailyPerDiem     *domain.Money   `json:"DailyPerDiem,omitempty"`
	StatementPerDiem *domain.Money   `json:"StatementPerDiem,omitempty"`
	TripValue        *domain.Money   `json:"TripValue,omitempty"`
	NumberOfTrips    *int            `json:"NumberOfTrips,omitempty"`
	LoadedMiles      *domain.Decimal `json:"LoadedMiles,omitempty"`
	EmptyMiles       *domain.Decimal `json:"EmptyMiles,omitempty"`
	HoursWorked      *domain.Decimal `json:"HoursWorked,omitempty"`
}

// StatementLine is one line of a statement.
type StatementLine struct {
	Category        string           `json:"Category"`
	Title           string           `json:"Title"`
	PolicyName      *string          `json:"PolicyName"`
	TripNumber      *string          `json:"TripNumber"`
	LoadNumber      *string          `json:"LoadNumber"`
	Amount          domain.Money     `json:"Amount"`
	TransactionType *TransactionType `json:"TransactionType"`
	SubLines        []SubLine        `json:"SubLines"`
}

// SubLine details a statement line.
type SubLine struct {
	Description string       `json:"Description"`
	Quantity    string       `json:"Quantity"`
	Rate        string       `json:"Rate"`
	Amount      domain.Money `json:"Amount"`
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
	PlateExpiresAt        *domain.Date       `json:"PlateExpiresAt,omitempty"`
	LicenseExpiresAt      *domain.Date       `json:"LicenseExpiresAt,omitempty"`
	InsuranceExpiresAt    *domain.Date       `json:"InsuranceExpiresAt,omitempty"`
	InspectionExpiresAt   *domain.Date       `json:"InspectionExpiresAt,omitempty"`
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
	PhysicalAddress domain.Address `json:"PhysicalAddress"`
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
