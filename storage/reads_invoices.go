package storage

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
)

type invoiceRow struct {
	ID                      uuid.UUID       `bun:"id"`
	Number                  string          `bun:"number"`
	Type                    string          `bun:"type"`
	Status                  string          `bun:"status"`
	CreatedDate             time.Time       `bun:"created_date"`
	InvoicedDate            *time.Time      `bun:"invoiced_date"`
	DueDate                 *time.Time      `bun:"due_date"`
	PaidDate                *time.Time      `bun:"paid_date"`
	LastSendDate            *time.Time      `bun:"last_send_date"`
	Currency                int             `bun:"currency"`
	Total                   decimal.Decimal `bun:"total"`
	AmountPaid              decimal.Decimal `bun:"amount_paid"`
	RemainingBalance        decimal.Decimal `bun:"remaining_balance"`
	OverPaymentAmount       decimal.Decimal `bun:"over_payment_amount"`
	IsSubmitted             bool            `bun:"is_submitted"`
	SupplementalInvoiceType *string         `bun:"supplemental_invoice_type"`
	VendorID                *uuid.UUID      `bun:"vendor_id"`
	CustomerID              *uuid.UUID      `bun:"customer_id"`
}

type vendorRow struct {
	ID          uuid.UUID `bun:"id"`
	Name        string    `bun:"name"`
	RemitStreet string    `bun:"remit_street"`
	RemitCity   string    `bun:"remit_city"`
	RemitState  string    `bun:"remit_state"`
	RemitZip    string    `bun:"remit_zip"`
	RemitEmail  string    `bun:"remit_email"`
	RemitPhone  string    `bun:"remit_phone"`
}

type customerRow struct {
	ID             uuid.UUID `bun:"id"`
	Name           string    `bun:"name"`
	EmailAddresses []string  `bun:"email_addresses,array"`
	PhoneNumbers   []string  `bun:"phone_numbers,array"`
	BillingStreet  string    `bun:"billing_street"`
	BillingCity    string    `bun:"billing_city"`
	BillingState   string    `bun:"billing_state"`
	BillingZip     string    `bun:"billing_zip"`
	ShippingStreet string    `bun:"shipping_street"`
	ShippingCity   string    `bun:"shipping_city"`
	ShippingState  string    `bun:"shipping_state"`
	ShippingZip    string    `bun:"shipping_zip"`
}

type invoiceLineRow struct {
	ID         uuid.UUID       `bun:"id"`
	Name       string          `bun:"name"`
	Amount     decimal.Decimal `bun:"amount"`
	Currency   int             `bun:"currency"`
	Unit       string          `bun:"rate_unit_of_measurement"`
	Units      decimal.Decimal `bun:"rate_units"`
	Rate       decimal.Decimal `bun:"rate_rate"`
	LoadNumber string          `bun:"load_number"`
	CustomerID string          `bun:"customer_id"`
	Category   string          `bun:"category"`
}

type paymentRow struct {
	ID               uuid.UUID       `bun:"id"`
	PaymentDate      time.Time       `bun:"payment_date"`
	Amount           decimal.Decimal `bun:"amount"`
	Currency         int             `bun:"currency"`
	CheckNumber      string          `bun:"check_number"`
	PaymentReference string          `bun:"payment_reference"`
}

type invoiceLoadRow struct {
	ID             uuid.UUID `bun:"id"`
	LoadNumber     string    `bun:"load_number"`
	SubsidiaryName string    `bun:"subsidiary_name"`
	Source         string    `bun:"source"`
	OrderNumber    string    `bun:"order_number"`
	PONumber       string    `bun:"po_number"`
}

// InvoiceByID answers spec 4.1 by id.
func (r *Reads) InvoiceByID(ctx context.Context, tenant uuid.UUID, id uuid.UUID) (*domain.Invoice, error) {
	return r.invoiceWhere(ctx, tenant, "id = ?", id)
}

// InvoiceByNumber answers spec 4.1 by invoice number.
func (r *Reads) InvoiceByNumber(ctx context.Context, tenant uuid.UUID, number string) (*domain.Invoice, error) {
	return r.invoiceWhere(ctx, tenant, "number = ?", number)
}

// invoiceWhere reads one invoice with vendor, customer, line items, loads and
// payments: six queries.
func (r *Reads) invoiceWhere(ctx context.Context, tenant uuid.UUID, cond string, arg any) (*domain.Invoice, error) {
	var inv *domain.Invoice
	err := r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		var rows []invoiceRow
		if err := selectRows(ctx, tx, &rows, `SELECT id, number, type, status, created_date, invoiced_date, due_date,
			paid_date, last_send_date, currency, total, amount_paid, remaining_balance, over_payment_amount,
			is_submitted, supplemental_invoice_type, vendor_id, customer_id
			FROM invoices WHERE tenant_id = ? AND `+cond, tenant, arg); err != nil || len(rows) == 0 {
			return err
		}
		row := rows[0]
		money := func(d decimal.Decimal) domain.Money { return domain.NewMoney(d, row.Currency) }
		inv = &domain.Invoice{
			ID: row.ID, Number: row.Number, Type: domain.InvoiceType(row.Type), Status: domain.InvoiceStatus(row.Status),
			CreatedDate: row.CreatedDate, InvoicedDate: row.InvoicedDate, DueDate: row.DueDate, PaidDate: row.PaidDate,
			LastSendDate: row.LastSendDate, Total: money(row.Total), AmountPaid: money(row.AmountPaid),
			RemainingBalance: money(row.RemainingBalance), OverPaymentAmount: money(row.OverPaymentAmount),
			IsSubmitted: row.IsSubmitted, SupplementalInvoiceType: row.SupplementalInvoiceType,
			VendorID: row.VendorID, CustomerID: row.CustomerID,
			LineItems: []domain.InvoiceLineItem{}, Loads: []domain.InvoiceLoad{}, Payments: []domain.InvoicePayment{},
		}
		return fillInvoice(ctx, tx, tenant, inv)
	})
	if err != nil {
		return nil, err
	}
	if inv == nil {
		return nil, domain.NotFound("invoice not found")
	}
	return inv, nil
}

func fillInvoice(ctx context.Context, tx bun.Tx, tenant uuid.UUID, inv *domain.Invoice) error {
	if inv.VendorID != nil {
		var vs []vendorRow
		if err := selectRows(ctx, tx, &vs, `SELECT id, name, remit_street, remit_city, remit_state, remit_zip,
			remit_email, remit_phone FROM vendors WHERE tenant_id = ? AND id = ?`, tenant, *inv.VendorID); err != nil {
			return err
		}
		for _, v := range vs {
			inv.Vendor = &domain.Vendor{ID: v.ID, Name: v.Name, RemitEmail: v.RemitEmail, RemitPhone: v.RemitPhone,
				RemitAddress: domain.Address{Street: v.RemitStreet, City: v.RemitCity, State: v.RemitState, ZipCode: v.RemitZip}}
		}
	}
	if inv.CustomerID != nil {
		var cs []customerRow
		if err := selectRows(ctx, tx, &cs, `SELECT id, name, email_addresses, phone_numbers, billing_street,
			billing_city, billing_state, billing_zip, shipping_street, shipping_city, shipping_state, shipping_zip
			FROM customers WHERE tenant_id = ? AND id = ?`, tenant, *inv.CustomerID); err != nil {
			return err
		}
		for _, c := range cs {
			inv.Customer = &domain.Customer{ID: c.ID, Name: c.Name, EmailAddresses: nonNil(c.EmailAddresses), PhoneNumbers: nonNil(c.PhoneNumbers),
				BillingAddress:  domain.Address{Street: c.BillingStreet, City: c.BillingCity, State: c.BillingState, ZipCode: c.BillingZip},
				ShippingAddress: domain.Address{Street: c.ShippingStreet, City: c.ShippingCity, State: c.ShippingState, ZipCode: c.ShippingZip}}
		}
	}
	var lines []invoiceLineRow
	if err := selectRows(ctx, tx, &lines, `SELECT id, name, amount, currency, rate_unit_of_measurement, rate_units,
		rate_rate, load_number, customer_id, category FROM invoice_line_items
		WHERE tenant_id = ? AND invoice_id = ? ORDER BY position`, tenant, inv.ID); err != nil {
		return err
	}
	for _, l := range lines {
		inv.LineItems = append(inv.LineItems, domain.InvoiceLineItem{ID: l.ID, Name: l.Name, Amount: domain.NewMoney(l.Amount, l.Currency),
			Rate:       domain.LineRate{UnitOfMeasurement: l.Unit, Units: l.Units, Rate: l.Rate},
			LoadNumber: l.LoadNumber, CustomerID: l.CustomerID, Category: l.Category})
	}
	var loads []invoiceLoadRow
	if err := selectRows(ctx, tx, &loads, `SELECT l.id, l.load_number, coalesce(s.name, '') AS subsidiary_name,
		l.source, l.order_number, l.po_number FROM invoice_loads il
		JOIN loads l ON l.id = il.load_id AND l.tenant_id = il.tenant_id
		LEFT JOIN subsidiaries s ON s.id = l.subsidiary_id AND s.tenant_id = l.tenant_id
		WHERE il.tenant_id = ? AND il.invoice_id = ? ORDER BY l.load_number`, tenant, inv.ID); err != nil {
		return err
	}
	for _, l := range loads {
		inv.Loads = append(inv.Loads, domain.InvoiceLoad{ID: l.ID, LoadNumber: l.LoadNumber, SubsidiaryName: l.SubsidiaryName,
			Source: l.Source, OrderNumber: l.OrderNumber, PONumber: l.PONumber})
	}
	var pays []paymentRow
	if err := selectRows(ctx, tx, &pays, `SELECT id, payment_date, amount, currency, check_number, payment_reference
		FROM invoice_payments WHERE tenant_id = ? AND invoice_id = ? ORDER BY payment_date, id`, tenant, inv.ID); err != nil {
		return err
	}
	for _, p := range pays {
		inv.Payments = append(inv.Payments, domain.InvoicePayment{ID: p.ID, PaymentDate: p.PaymentDate, Amount: domain.NewMoney(p.Amount, p.Currency),
			CheckNumber: p.CheckNumber, PaymentReference: p.PaymentReference})
	}
	return nil
}
