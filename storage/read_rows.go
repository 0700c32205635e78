package storage

import (
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// The rows of the hot reads that a domain type does not match column for
// column (nested addresses, money of an amount and a currency), read by
// name, and the parts they make: one invoice read (invoiceSQL) first.

type invoiceRow struct {
	ID                      uuid.UUID           `db:"id"`
	Number                  string              `db:"number"`
	Type                    reads.InvoiceType   `db:"type"`
	Status                  reads.InvoiceStatus `db:"status"`
	CreatedDate             time.Time           `db:"created_date"`
	InvoicedDate            *time.Time          `db:"invoiced_date"`
	DueDate                 *time.Time          `db:"due_date"`
	PaidDate                *time.Time          `db:"paid_date"`
	LastSendDate            *time.Time          `db:"last_send_date"`
	Currency                int                 `db:"currency"`
	Total                   numeric             `db:"total"`
	AmountPaid              numeric             `db:"amount_paid"`
	RemainingBalance        numeric             `db:"remaining_balance"`
	OverPaymentAmount       numeric             `db:"over_payment_amount"`
	IsSubmitted             bool                `db:"is_submitted"`
	SupplementalInvoiceType *string             `db:"supplemental_invoice_type"`
	VendorID                *uuid.UUID          `db:"vendor_id"`
	CustomerID              *uuid.UUID          `db:"customer_id"`
}

// fill sets inv's own fields (not its relations) from the row.
func (r invoiceRow) fill(inv *reads.Invoice) {
	inv.ID, inv.Number, inv.Type, inv.Status = r.ID, r.Number, r.Type, r.Status
	inv.CreatedDate, inv.InvoicedDate, inv.DueDate, inv.PaidDate, inv.LastSendDate = r.CreatedDate, r.InvoicedDate, r.DueDate, r.PaidDate, r.LastSendDate
	inv.Total, inv.AmountPaid = domain.NewMoney(r.Total.dec(), r.Currency), domain.NewMoney(r.AmountPaid.dec(), r.Currency)
	inv.RemainingBalance, inv.OverPaymentAmount = domain.NewMoney(r.RemainingBalance.dec(), r.Currency), domain.NewMoney(r.OverPaymentAmount.dec(), r.Currency)
	inv.IsSubmitted, inv.SupplementalInvoiceType, inv.VendorID, inv.CustomerID = r.IsSubmitted, r.SupplementalInvoiceType, r.VendorID, r.CustomerID
}

type vendorRow struct {
	ID          uuid.UUID `db:"id"`
	Name        string    `db:"name"`
	RemitStreet string    `db:"remit_street"`
	RemitCity   string    `db:"remit_city"`
	RemitState  string    `db:"remit_state"`
	RemitZip    string    `db:"remit_zip"`
	RemitEmail  string    `db:"remit_email"`
	RemitPhone  string    `db:"remit_phone"`
}

func (r vendorRow) vendor() *reads.Vendor {
	return &reads.Vendor{ID: r.ID, Name: r.Name, RemitEmail: r.RemitEmail, RemitPhone: r.RemitPhone,
		RemitAddress: domain.Address{Street: r.RemitStreet, City: r.RemitCity, State: r.RemitState, ZipCode: r.RemitZip}}
}

type customerRow struct {
	ID             uuid.UUID `db:"id"`
	Name           string    `db:"name"`
	EmailAddresses []string  `db:"email_addresses"`
	PhoneNumbers   []string  `db:"phone_numbers"`
	BillingStreet  string    `db:"billing_street"`
	BillingCity    string    `db:"billing_city"`
	BillingState   string    `db:"billing_state"`
	BillingZip     string    `db:"billing_zip"`
	ShippingStreet string    `db:"shipping_street"`
	ShippingCity   string    `db:"shipping_city"`
	ShippingState  string    `db:"shipping_state"`
	ShippingZip    string    `db:"shipping_zip"`
}

func (r customerRow) customer() *reads.Customer {
	return &reads.Customer{ID: r.ID, Name: r.Name, EmailAddresses: nonNil(r.EmailAddresses), PhoneNumbers: nonNil(r.PhoneNumbers),
		BillingAddress:  domain.Address{Street: r.BillingStreet, City: r.BillingCity, State: r.BillingState, ZipCode: r.BillingZip},
		ShippingAddress: domain.Address{Street: r.ShippingStreet, City: r.ShippingCity, State: r.ShippingState, ZipCode: r.ShippingZip}}
}

type invoiceLineRow struct {
	ID                    uuid.UUID `db:"id"`
	Name                  string    `db:"name"`
	Amount                numeric   `db:"amount"`
	Currency              int       `db:"currency"`
	RateUnitOfMeasurement string    `db:"rate_unit_of_measurement"`
	RateUnits             numeric   `db:"rate_units"`
	RateRate              numeric   `db:"rate_rate"`
	LoadNumber            string    `db:"load_number"`
	CustomerID            string    `db:"customer_id"`
	Category              string    `db:"category"`
}

func (r invoiceLineRow) line() reads.InvoiceLineItem {
	return reads.InvoiceLineItem{ID: r.ID, Name: r.Name, Amount: domain.NewMoney(r.Amount.dec(), r.Currency),
		Rate: reads.LineRate{UnitOfMeasurement: r.RateUnitOfMeasurement, Units: domain.Decimal{Decimal: r.RateUnits.dec()},
			Rate: domain.Decimal{Decimal: r.RateRate.dec()}},
		LoadNumber: r.LoadNumber, CustomerID: r.CustomerID, Category: r.Category}
}

type paymentRow struct {
	ID               uuid.UUID `db:"id"`
	PaymentDate      time.Time `db:"payment_date"`
	Amount           numeric   `db:"amount"`
	Currency         int       `db:"currency"`
	CheckNumber      string    `db:"check_number"`
	PaymentReference string    `db:"payment_reference"`
}

func (r paymentRow) payment() reads.InvoicePayment {
	return reads.InvoicePayment{ID: r.ID, PaymentDate: r.PaymentDate, Amount: domain.NewMoney(r.Amount.dec(), r.Currency),
		CheckNumber: r.CheckNumber, PaymentReference: r.PaymentReference}
}

// The rows of a load snapshot read (loadSQL); its trips are domain.Trip as
// they are.

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
