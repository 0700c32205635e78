package storage

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// InvoiceByID answers docs/api-contract.md §4.1 by id.
func (r *Reads) InvoiceByID(ctx context.Context, tenant uuid.UUID, id uuid.UUID) (*reads.Invoice, error) {
	return r.invoice(ctx, tenant, InvoiceByID, id)
}

// InvoiceByNumber answers docs/api-contract.md §4.1 by invoice number.
func (r *Reads) InvoiceByNumber(ctx context.Context, tenant uuid.UUID, number string) (*reads.Invoice, error) {
	return r.invoice(ctx, tenant, InvoiceByNumber, number)
}

// invoice reads one invoice with vendor, customer, line items, loads and
// payments: six queries, one round trip together with the tenant context.
func (r *Reads) invoice(ctx context.Context, tenant uuid.UUID, key InvoiceLookup, arg any) (*reads.Invoice, error) {
	var read *InvoiceRead
	if err := r.DB.readTenant(ctx, tenant, func(_ context.Context, t *Tx) error {
		read = QueueInvoiceRead(&t.batch, key, tenant, arg)
		t.queued++
		return nil
	}); err != nil {
		return nil, err
	}
	if !read.Found {
		return nil, domain.NotFound("invoice not found")
	}
	return read.Invoice, nil
}

// InvoiceLookup says how an invoice read names its invoice.
type InvoiceLookup int

const (
	InvoiceByID     InvoiceLookup = iota // by invoices.id (a uuid.UUID)
	InvoiceByNumber                      // by invoices.number (a string)
)

// invoiceSQL are the statement texts of one invoice read, per key: constant
// texts with $1 = tenant and $2 = the key, so that pgx prepares each once per
// connection. Every child query reaches its invoice through the same key, so
// all six run in one round trip.
var invoiceSQL = [2]invoiceStatements{
	InvoiceByID:     invoiceStatementsFor("i.id = $2"),
	InvoiceByNumber: invoiceStatementsFor("i.number = $2"),
}

type invoiceStatements struct{ invoice, vendor, customer, lines, loads, payments string }

func invoiceStatementsFor(key string) invoiceStatements {
	where := " WHERE i.tenant_id = $1 AND " + key
	return invoiceStatements{
		invoice: `SELECT i.id, i.number, i.type, i.status, i.created_date, i.invoiced_date, i.due_date,
			i.paid_date, i.last_send_date, i.currency, i.total, i.amount_paid, i.remaining_balance,
			i.over_payment_amount, i.is_submitted, i.supplemental_invoice_type, i.vendor_id, i.customer_id
			FROM invoices i` + where,
		vendor: `SELECT v.id, v.name, v.remit_street, v.remit_city, v.remit_state, v.remit_zip, v.remit_email,
			v.remit_phone FROM invoices i JOIN vendors v ON v.tenant_id = i.tenant_id AND v.id = i.vendor_id` + where,
		customer: `SELECT c.id, c.name, c.email_addresses, c.phone_numbers, c.billing_street, c.billing_city,
			c.billing_state, c.billing_zip, c.shipping_street, c.shipping_city, c.shipping_state, c.shipping_zip
			FROM invoices i JOIN customers c ON c.tenant_id = i.tenant_id AND c.id = i.customer_id` + where,
		lines: `SELECT li.id, li.name, li.amount, li.currency, li.rate_unit_of_measurement, li.rate_units,
			li.rate_rate, li.load_number, li.customer_id, li.category
			FROM invoices i JOIN invoice_line_items li ON li.tenant_id = i.tenant_id AND li.invoice_id = i.id` + where +
			" ORDER BY li.position",
		loads: `SELECT l.id, l.load_number, coalesce(s.name, '') AS subsidiary_name, l.source, l.order_number, l.po_number
			FROM invoices i JOIN invoice_loads il ON il.tenant_id = i.tenant_id AND il.invoice_id = i.id
			JOIN loads l ON l.id = il.load_id AND l.tenant_id = il.tenant_id
			LEFT JOIN subsidiaries s ON s.id = l.subsidiary_id AND s.tenant_id = l.tenant_id` + where +
			" ORDER BY l.load_number",
		payments: `SELECT p.id, p.payment_date, p.amount, p.currency, p.check_number, p.payment_reference
			FROM invoices i JOIN invoice_payments p ON p.tenant_id = i.tenant_id AND p.invoice_id = i.id` + where +
			" ORDER BY p.payment_date, p.id",
	}
}

// InvoiceRead is one invoice read queued on a batch: once the batch's
// results are closed, Invoice is filled when Found.
type InvoiceRead struct {
	Invoice *reads.Invoice
	Found   bool
}

// QueueInvoiceRead queues the six queries of one invoice read on b. The
// caller sends b (after binding it to the tenant, unless it is a benchmark's
// bare baseline) and closes its results.
func QueueInvoiceRead(b *pgx.Batch, key InvoiceLookup, tenant uuid.UUID, arg any) *InvoiceRead {
	sql := invoiceSQL[key]
	read := &InvoiceRead{Invoice: &reads.Invoice{
		LineItems: []reads.InvoiceLineItem{}, Loads: []reads.InvoiceLoad{}, Payments: []reads.InvoicePayment{},
	}}
	inv := read.Invoice
	queueRows(b, sql.invoice, func(rows pgx.Rows) error {
		row, err := pgx.RowToStructByName[invoiceRow](rows)
		row.fill(inv)
		read.Found = err == nil
		return err
	}, tenant, arg)
	queueRows(b, sql.vendor, func(rows pgx.Rows) error {
		row, err := pgx.RowToStructByName[vendorRow](rows)
		inv.Vendor = row.vendor()
		return err
	}, tenant, arg)
	queueRows(b, sql.customer, func(rows pgx.Rows) error {
		row, err := pgx.RowToStructByName[customerRow](rows)
		inv.Customer = row.customer()
		return err
	}, tenant, arg)
	queueRows(b, sql.lines, func(rows pgx.Rows) error {
		row, err := pgx.RowToStructByName[invoiceLineRow](rows)
		inv.LineItems = append(inv.LineItems, row.line())
		return err
	}, tenant, arg)
	queueRows(b, sql.loads, func(rows pgx.Rows) error {
		l, err := pgx.RowToStructByName[reads.InvoiceLoad](rows)
		inv.Loads = append(inv.Loads, l)
		return err
	}, tenant, arg)
	queueRows(b, sql.payments, func(rows pgx.Rows) error {
		row, err := pgx.RowToStructByName[paymentRow](rows)
		inv.Payments = append(inv.Payments, row.payment())
		return err
	}, tenant, arg)
	return read
}
