package seed

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

var supplementalTypes = []string{"Accessorial", "Correction", "Rebill"}

// invoices: invoice j has type j%4 and status (j/4)%3, so every combination
// occurs. Load, order and summary invoices bill 1, 1 and 2–5 seeded loads
// (each load billed once); standalone invoices bill none. Draft invoices
// are unsent and unpaid, AwaitingPayment ones are sent and sometimes partly
// paid, Paid ones are paid in full by one or two payments, some overpaid.
func (s *seeder) invoices(ctx context.Context) error {
	inv := newTable("invoices", "id", "tenant_id", "number", "type", "status", "created_date", "invoiced_date",
		"due_date", "paid_date", "last_send_date", "currency", "total", "amount_paid", "remaining_balance",
		"over_payment_amount", "is_submitted", "supplemental_invoice_type", "vendor_id", "customer_id")
	lines := newTable("invoice_line_items", "id", "tenant_id", "invoice_id", "position", "name", "amount",
		"currency", "rate_unit_of_measurement", "rate_units", "rate_rate", "load_number", "customer_id", "category")
	links := newTable("invoice_loads", "tenant_id", "invoice_id", "load_id")
	pays := newTable("invoice_payments", "id", "tenant_id", "invoice_id", "payment_date", "amount", "currency",
		"check_number", "payment_reference")
	b := s.batch(inv, lines, links, pays)
	ri, rl := newRows("invoice"), newRows("load")
	seen := map[[2]string]bool{}
	nextLoad := len(domain.LoadStatuses) // loads 0–8 stay unbilled
	for j := 0; j < s.n.invoices; j++ {
		r := ri.at(j)
		typ := reads.InvoiceTypes[j%len(reads.InvoiceTypes)]
		status := reads.InvoiceStatuses[(j/len(reads.InvoiceTypes))%len(reads.InvoiceStatuses)]
		id := s.ids.of("invoice", j)
		number := fmt.Sprintf("INV-%06d", 100001+j)

		nLoads := map[reads.InvoiceType]int{reads.LoadInvoice: 1, reads.OrderInvoice: 1, reads.SummaryInvoice: 2 + r.IntN(4)}[typ]
		var billed []load
		for k := 0; k < nLoads; k++ {
			li := nextLoad % s.n.loads
			nextLoad++
			billed = append(billed, s.loadAt(rl.at(li), li))
		}
		customer := pick("invoice-customer", j, s.n.customers)
		if len(billed) > 0 && billed[0].customer >= 0 {
			customer = billed[0].customer
		}
		customerID := s.ids.of("customer", customer)

		var total cents
		pos := 0
		line := func(name, category, unit string, units, rate int64, unitsExp, rateExp int32, amount cents, loadNo string) {
			lines.add(s.ids.of("invoice-line", j*32+pos), s.tid, id, pos, name, amount.num(), domain.USD, unit,
				decimalOf(units, unitsExp), decimalOf(rate, rateExp), loadNo, customerID.String(), category)
			total += amount
			pos++
		}
		for _, l := range billed {
			links.add(s.tid, id, l.id)
			line("Line Haul", "Freight", "Flat", 1, int64(l.rate), 0, -2, l.rate, l.number)
			fsc := cents(l.miles) * 45 // $0.45 a mile
			line("Fuel Surcharge", "Fuel", "Mile", int64(l.miles), 45, 0, -2, fsc, l.number)
			if r.IntN(4) == 0 {
				hours := int64(1 + r.IntN(5))
				line("Detention", "Accessorial", "Hour", hours, 7500, 0, -2, cents(hours*7500), l.number)
			}
		}
		if typ == reads.StandaloneInvoice {
			days := int64(1 + r.IntN(10))
			line("Trailer Storage", "Storage", "Day", days, 5000, 0, -2, cents(days*5000), "")
			if r.IntN(2) == 0 {
				line("Lumper Fee", "Accessorial", "Flat", 1, 18500, 0, -2, 18500, "")
			}
		}

		created := epoch.Add(time.Duration(r.IntN(180*24*60)) * time.Minute)
		if len(billed) > 0 {
			created = billed[0].created.Add(time.Duration(48+r.IntN(96)) * time.Hour)
		}
		var invoiced, due, paid, lastSend any
		var amountPaid, over cents
		submitted := false
		var payments []cents
		switch status {
		case reads.InvoiceAwaitingPayment, reads.InvoicePaid:
			iv := created.Add(time.Duration(1+r.IntN(48)) * time.Hour)
			invoiced, due, lastSend, submitted = iv, iv.AddDate(0, 0, 30), iv.Add(time.Duration(r.IntN(72))*time.Hour), true
			if status == reads.InvoiceAwaitingPayment && r.IntN(3) == 0 {
				payments = []cents{total / 2}
			}
			if status == reads.InvoicePaid {
				if r.IntN(3) == 0 {
					first := total / 3
					payments = []cents{first, total - first}
				} else {
					payments = []cents{total}
				}
				if r.IntN(8) == 0 {
					over = between(r, 100, 5000)
					payments[len(payments)-1] += over
				}
			}
		}
		at := created.Add(time.Duration(5*24+r.IntN(20*24)) * time.Hour)
		for k, amount := range payments {
			at = at.Add(time.Duration(24+r.IntN(10*24)) * time.Hour)
			pays.add(s.ids.of("invoice-payment", j*4+k), s.tid, id, at, amount.num(), domain.USD,
				fmt.Sprintf("%06d", r.IntN(1e6)), fmt.Sprintf("ACH-%08d", r.IntN(1e8)))
			amountPaid += amount
		}
		if status == reads.InvoicePaid {
			paid = at
		}
		remaining := total - amountPaid + over
		var supplemental any
		if typ != reads.StandaloneInvoice && r.IntN(10) == 0 {
			supplemental = oneOf(r, supplementalTypes)
		}
		if err := errors.Join(domain.CheckList("line items", "an invoice", pos, reads.MaxInvoiceLineItems),
			domain.CheckList("loads", "an invoice", len(billed), reads.MaxInvoiceLoads),
			domain.CheckList("payments", "an invoice", len(payments), reads.MaxInvoicePayments)); err != nil {
			return fmt.Errorf("seed: invoice %s: %w", number, err)
		}
		inv.add(id, s.tid, number, string(typ), string(status), created, invoiced, due, paid, lastSend, domain.USD,
			total.num(), amountPaid.num(), remaining.num(), over.num(), submitted, supplemental,
			s.ids.of("vendor", j%s.n.vendors), customerID)

		ref := InvoiceRef{ID: id, Number: number, Type: typ, Status: status}
		if key := [2]string{string(typ), string(status)}; !seen[key] {
			seen[key] = true
			s.res.Invoices = append(s.res.Invoices, ref)
		}
		if s.res.Invoice.Number == "" && typ == reads.LoadInvoice && status == reads.InvoicePaid {
			s.res.Invoice = ref
		}
		if err := b.maybeFlush(ctx); err != nil {
			return err
		}
		s.prog.step(s.ph.invoices, 1)
	}
	return b.flush(ctx)
}
