package haulgraph

import "time"

// The API's resources. Field names are the REST API's; GraphQL answers and
// events decode into the same types (JSON field names match regardless of
// case). Identifiers are strings (UUIDs), dates "2006-01-02".

// Load is a load with its stops and trips.
type Load struct {
	ID             string        `json:"Id"`
	LoadNumber     string        `json:"LoadNumber"`
	Status         LoadStatus    `json:"Status"`
	BillingStatus  BillingStatus `json:"BillingStatus"`
	SubsidiaryID   string        `json:"SubsidiaryId"`
	SubsidiaryName string        `json:"SubsidiaryName"`
	CustomerID     *string       `json:"CustomerId"`
	CustomerName   *string       `json:"CustomerName"`
	OrderNumber    string        `json:"OrderNumber"`
	PONumber       string        `json:"PONumber"`
	Rate           *Money        `json:"Rate"`
	Weight         *Decimal      `json:"Weight"`
	Commodity      string        `json:"Commodity"`
	EquipmentType  string        `json:"EquipmentType"`
	Source         string        `json:"Source"`
	Stops          []Stop        `json:"Stops"`
	Trips          []Trip        `json:"Trips"`
	CreatedAt      time.Time     `json:"CreatedAt"`
	UpdatedAt      time.Time     `json:"UpdatedAt"`
	APIResource
}

// Stop is a pickup or a delivery of a load.
type Stop struct {
	Sequence         int        `json:"Sequence"`
	Type             StopType   `json:"Type"`
	Name             string     `json:"Name"`
	LocationID       *string    `json:"LocationId"`
	Address          Address    `json:"Address"`
	AppointmentStart *time.Time `json:"AppointmentStart"`
	AppointmentEnd   *time.Time `json:"AppointmentEnd"`
	ArrivedAt        *time.Time `json:"ArrivedAt"`
	DepartedAt       *time.Time `json:"DepartedAt"`
}

// Trip is a leg of a load with its drivers, truck, trailer or carrier.
type Trip struct {
	ID         string   `json:"Id"`
	TripNumber string   `json:"TripNumber"`
	Status     string   `json:"Status"`
	DriverIDs  []string `json:"DriverIds"`
	TruckID    *string  `json:"TruckId"`
	TrailerID  *string  `json:"TrailerId"`
	CarrierID  *string  `json:"CarrierId"`
	APIResource
}

// Address is a postal address.
type Address struct {
	Street  string `json:"Street"`
	City    string `json:"City"`
	State   string `json:"State"`
	ZipCode string `json:"ZipCode"`
}

// Statement is a driver's settlement statement.
type Statement struct {
	Number         int              `json:"Number"`
	Status         StatementStatus  `json:"Status"`
	StatementDate  string           `json:"StatementDate"`
	PayPeriodID    string           `json:"PayPeriodId"`
	PayPeriodTitle string           `json:"PayPeriodTitle"`
	Driver         *StatementDriver `json:"Driver"`
	Totals         StatementTotals  `json:"Totals"`
	LineItems      []StatementLine  `json:"LineItems"`
	APIResource
}

// DriverName is the statement's driver's name ("" without a driver).
func (s *Statement) DriverName() string {
	if s.Driver == nil {
		return ""
	}
	return s.Driver.Name
}

// StatementDriver is the driver a statement pays.
type StatementDriver struct {
	ID           string     `json:"Id"`
	Name         string     `json:"Name"`
	Type         DriverType `json:"Type"`
	CompanyName  *string    `json:"CompanyName"`
	FleetName    *string    `json:"FleetName"`
	SubsidiaryID *string    `json:"SubsidiaryId"`
}

// StatementTotals are a statement's sums; an absent total is nil.
type StatementTotals struct {
	GrossIncome, NetIncome, Deductions, DriverPayment       *Money
	LineHaul, Accessorials, Bonus, Credits, Reimbursements  *Money
	DailyPay, DailyPerDiem, StatementPerDiem, Echecks, Fuel *Money
	Escrow, ServiceFee, Shortfall, Tolls, TripValue         *Money
	LoadedMiles, EmptyMiles, HoursWorked                    *Decimal
	NumberOfTrips                                           *int
}

// StatementLine is a line of a statement.
type StatementLine struct {
	Title           string  `json:"Title"`
	Category        string  `json:"Category"`
	Amount          Money   `json:"Amount"`
	LoadNumber      *string `json:"LoadNumber"`
	TripNumber      *string `json:"TripNumber"`
	PolicyName      *string `json:"PolicyName"`
	TransactionType *string `json:"TransactionType"`
	SubLines        []struct {
		Description string `json:"Description"`
		Quantity    string `json:"Quantity"`
		Rate        string `json:"Rate"`
		Amount      Money  `json:"Amount"`
	} `json:"SubLines"`
}

// Webhook is an endpoint the API delivers events to. Secret (the whsec_
// signing secret) is shown only by Create and RotateSecret; PublicKey (whpk_)
// is a standard-webhooks-ed25519 webhook's verification key.
type Webhook struct {
	ID                        string          `json:"Id"`
	Name                      string          `json:"Name"`
	URL                       string          `json:"Url"`
	EventTypes                []EventType     `json:"EventTypes"`
	SubsidiaryID              string          `json:"SubsidiaryId"`
	IncludePreviousAttributes bool            `json:"IncludePreviousAttributes"`
	SignatureScheme           SignatureScheme `json:"SignatureScheme"`
	State                     WebhookState    `json:"State"`
	StateLabel                string          `json:"StateLabel"`
	StateReason               string          `json:"StateReason"`
	Secret                    *string         `json:"Secret"`
	PublicKey                 *string         `json:"PublicKey"`
	RotationEndsAt            *time.Time      `json:"RotationEndsAt"`
	CreatedAt                 time.Time       `json:"CreatedAt"`
	UpdatedAt                 time.Time       `json:"UpdatedAt"`
	APIResource
}

// Delivery is one event sent to a webhook, with its attempts.
type Delivery struct {
	ID              string          `json:"Id"`
	EventID         string          `json:"EventId"`
	EventType       EventType       `json:"EventType"`
	Status          DeliveryStatus  `json:"Status"`
	Attempt         int             `json:"Attempt"`
	SignatureScheme SignatureScheme `json:"SignatureScheme"`
	NextAttemptAt   *time.Time      `json:"NextAttemptAt"`
	CreatedAt       time.Time       `json:"CreatedAt"`
	Attempts        []struct {
		ID              string          `json:"Id"`
		Attempt         int             `json:"Attempt"`
		AttemptedAt     time.Time       `json:"AttemptedAt"`
		StatusCode      *int            `json:"StatusCode"`
		LatencyMs       int             `json:"LatencyMs"`
		Error           string          `json:"Error"`
		SignatureScheme SignatureScheme `json:"SignatureScheme"`
	} `json:"Attempts"`
	APIResource
}

// Document is a file attached to a load, a trip, a driver or a carrier.
type Document struct {
	ID             string    `json:"id"`
	ParentID       string    `json:"ParentId"`
	ParentType     string    `json:"ParentType"`
	AttachmentType string    `json:"AttachmentType"`
	AttachmentPath string    `json:"AttachmentPath"`
	AttachmentSize int64     `json:"AttachmentSize"`
	UploadedAt     time.Time `json:"UploadedAt"`
	APIResource
}

// Invoice is a customer invoice with its lines and payments.
type Invoice struct {
	ID                      string     `json:"Id"`
	Number                  string     `json:"Number"`
	Type                    string     `json:"Type"`
	Status                  string     `json:"Status"`
	SupplementalInvoiceType *string    `json:"SupplementalInvoiceType"`
	IsSubmitted             bool       `json:"IsSubmitted"`
	Total                   Money      `json:"Total"`
	AmountPaid              Money      `json:"AmountPaid"`
	RemainingBalance        Money      `json:"RemainingBalance"`
	OverPaymentAmount       Money      `json:"OverPaymentAmount"`
	CreatedDate             time.Time  `json:"CreatedDate"`
	InvoicedDate            *time.Time `json:"InvoicedDate"`
	DueDate                 *time.Time `json:"DueDate"`
	PaidDate                *time.Time `json:"PaidDate"`
	LastSendDate            *time.Time `json:"LastSendDate"`
	Customer                *struct {
		ID              string   `json:"Id"`
		Name            string   `json:"Name"`
		BillingAddress  Address  `json:"BillingAddress"`
		ShippingAddress Address  `json:"ShippingAddress"`
		EmailAddresses  []string `json:"EmailAddresses"`
		PhoneNumbers    []string `json:"PhoneNumbers"`
	} `json:"Customer"`
	Vendor *struct {
		ID           string  `json:"Id"`
		Name         string  `json:"Name"`
		RemitAddress Address `json:"RemitAddress"`
		RemitEmail   string  `json:"RemitEmail"`
		RemitPhone   string  `json:"RemitPhone"`
	} `json:"Vendor"`
	LineItems []struct {
		ID         string `json:"Id"`
		Name       string `json:"Name"`
		Category   string `json:"Category"`
		CustomerID string `json:"CustomerId"`
		LoadNumber string `json:"LoadNumber"`
		Amount     Money  `json:"Amount"`
		Rate       struct {
			Rate              Decimal `json:"Rate"`
			Units             Decimal `json:"Units"`
			UnitOfMeasurement string  `json:"UnitOfMeasurement"`
		} `json:"Rate"`
	} `json:"LineItems"`
	Loads []struct {
		ID             string `json:"Id"`
		LoadNumber     string `json:"LoadNumber"`
		OrderNumber    string `json:"OrderNumber"`
		PONumber       string `json:"PONumber"`
		Source         string `json:"Source"`
		SubsidiaryName string `json:"SubsidiaryName"`
	} `json:"Loads"`
	Payments []struct {
		ID               string    `json:"Id"`
		Amount           Money     `json:"Amount"`
		CheckNumber      string    `json:"CheckNumber"`
		PaymentDate      time.Time `json:"PaymentDate"`
		PaymentReference string    `json:"PaymentReference"`
	} `json:"Payments"`
	APIResource
}

// Trailer is a trailer of the fleet.
type Trailer struct {
	ID                    string  `json:"Id"`
	TrailerNum            *string `json:"TrailerNum"`
	Status                *string `json:"Status"`
	SubsidiaryID          *string `json:"SubsidiaryId"`
	Make                  *string `json:"Make"`
	Year                  *int    `json:"Year"`
	VinNum                *string `json:"VinNum"`
	EquipmentType         *string `json:"EquipmentType"`
	EquipmentSize         *string `json:"EquipmentSize"`
	LicenseNum            *string `json:"LicenseNum"`
	LicenseState          *string `json:"LicenseState"`
	LicenseCountry        *string `json:"LicenseCountry"`
	LicenseExpiresAt      *string `json:"LicenseExpiresAt"`
	PlateExpiresAt        *string `json:"PlateExpiresAt"`
	InspectionExpiresAt   *string `json:"InspectionExpiresAt"`
	InsuranceCompany      *string `json:"InsuranceCompany"`
	InsurancePolicyNumber *string `json:"InsurancePolicyNumber"`
	InsuranceExpiresAt    *string `json:"InsuranceExpiresAt"`
	Capacity              *struct {
		Pallets *int `json:"Pallets"`
		Weight  *int `json:"Weight"`
	} `json:"Capacity"`
	Fleet *struct {
		ID                  string `json:"Id"`
		Name                string `json:"Name"`
		InvoiceNumberPrefix string `json:"InvoiceNumberPrefix"`
	} `json:"Fleet"`
	References []struct {
		Type  string `json:"Type"`
		Value string `json:"Value"`
	} `json:"References"`
	Notes     []Note    `json:"Notes"`
	CreatedAt time.Time `json:"CreatedAt"`
}

// Note is a note on a trailer or a location.
type Note struct {
	ID          string    `json:"id"`
	NoteType    string    `json:"NoteType"`
	Description string    `json:"Description"`
	User        string    `json:"User"`
	Time        time.Time `json:"Time"`
}

// Location is a shipper's, a receiver's or a facility's site.
type Location struct {
	ID              string    `json:"Id"`
	Name            string    `json:"Name"`
	Type            string    `json:"Type"`
	Status          string    `json:"Status"`
	CompanyNumber   string    `json:"CompanyNumber"`
	ExternalID      *string   `json:"ExternalId"`
	PhysicalAddress Address   `json:"PhysicalAddress"`
	Email           []string  `json:"Email"`
	Phone           []string  `json:"Phone"`
	Fax             string    `json:"Fax"`
	Notes           []Note    `json:"Notes"`
	DateCreated     time.Time `json:"DateCreated"`
}

// User is a user of the tenant.
type User struct {
	ID          string    `json:"Id"`
	UserName    string    `json:"UserName"`
	Name        string    `json:"Name"`
	Email       string    `json:"Email"`
	Phone       string    `json:"Phone"`
	Role        string    `json:"Role"`
	UserType    string    `json:"UserType"`
	Status      string    `json:"Status"`
	CompanyCode string    `json:"CompanyCode"`
	Permissions []string  `json:"Permissions"`
	CreatedAt   time.Time `json:"CreatedAt"`
	ModifiedAt  time.Time `json:"ModifiedAt"`
}
