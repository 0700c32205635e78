package seed_test

import (
	"context"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// TestSeedCoversEveryShape checks that scale 1 holds every shape the API contract
// describes, and that the well-known keys point at what they promise.
func TestSeedCoversEveryShape(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	res := run(t, db, "acme", 1)
	ctx := context.Background()
	tid := res.TenantID

	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := db.Pool.QueryRow(ctx, q, append([]any{tid}, args...)...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	expect := func(what string, got, want int) {
		t.Helper()
		if got != want {
			t.Errorf("%s: got %d, want %d", what, got, want)
		}
	}
	atLeast := func(what string, got, min int) {
		t.Helper()
		if got < min {
			t.Errorf("%s: got %d, want at least %d", what, got, min)
		}
	}

	expect("statements", count(`SELECT count(*) FROM settlement_statements WHERE tenant_id = $1`), 1000)
	expect("loads", count(`SELECT count(*) FROM loads WHERE tenant_id = $1`), 1000)
	expect("subsidiaries", count(`SELECT count(*) FROM subsidiaries WHERE tenant_id = $1`), len(res.SubsidiaryIDs))

	// Statements: every status, the well-known numbers, the window, the counts.
	for _, st := range []reads.StatementStatus{reads.StatementProcessed, reads.StatementFailed, reads.StatementGenerating,
		reads.StatementReversing, reads.StatementOpen, reads.StatementDraft} {
		num, ok := res.Statements[st]
		if !ok {
			t.Errorf("no well-known %s statement", st)
			continue
		}
		expect("statement "+string(st), count(`SELECT count(*) FROM settlement_statements WHERE tenant_id = $1 AND number = $2 AND status = $3`, num, string(st)), 1)
	}
	expect("categories of the well-known Processed statement", count(`SELECT count(DISTINCT l.category) FROM statement_line_items l
		JOIN settlement_statements s ON s.id = l.statement_id WHERE s.tenant_id = $1 AND s.number = $2
		AND l.category IN ('Per Trip', 'Accessorial', 'Fuel', 'Deduction', 'Escrow')`, res.Statements[reads.StatementProcessed]), 5)
	expect("totals of the well-known Processed statement", count(`SELECT count(*) FROM settlement_statements WHERE tenant_id = $1 AND number = $2
		AND gross_income IS NOT NULL AND net_income IS NOT NULL AND fuel IS NOT NULL AND escrow IS NOT NULL AND number_of_trips > 0`,
		res.Statements[reads.StatementProcessed]), 1)
	expect("statements outside the window", count(`SELECT count(*) FROM settlement_statements WHERE tenant_id = $1 AND statement_date NOT BETWEEN $2 AND $3`,
		res.StatementFrom.Time, res.StatementTo.Time), 0)
	expect("visible statements", count(`SELECT count(*) FROM settlement_statements WHERE tenant_id = $1 AND status IN ('Processed','Failed')`), res.VisibleStatements)
	for _, dt := range domain.DriverTypes {
		n := count(`SELECT count(*) FROM settlement_statements WHERE tenant_id = $1 AND status IN ('Processed','Failed') AND driver_type = $2`, string(dt))
		atLeast("visible "+string(dt)+" statements", n, 1)
		expect("VisibleByDriverType "+string(dt), res.VisibleByDriverType[dt], n)
	}
	expect("driver's visible statements", count(`SELECT count(*) FROM settlement_statements WHERE tenant_id = $1 AND status IN ('Processed','Failed') AND driver_id = $2`, res.DriverID), res.DriverVisibleStatements)
	atLeast("driver's visible statements", res.DriverVisibleStatements, 1)
	expect("statement driver types match drivers", count(`SELECT count(*) FROM settlement_statements s JOIN drivers d ON d.id = s.driver_id WHERE s.tenant_id = $1 AND s.driver_type <> d.type`), 0)
	atLeast("statements without currency", count(`SELECT count(*) FROM settlement_statements WHERE tenant_id = $1 AND currency IS NULL AND status = 'Processed'`), 1)
	atLeast("visible statements with absent totals", count(`SELECT count(*) FROM settlement_statements WHERE tenant_id = $1 AND status = 'Processed' AND fuel IS NULL AND escrow IS NULL`), 1)
	atLeast("visible statements with fuel and escrow", count(`SELECT count(*) FROM settlement_statements WHERE tenant_id = $1 AND status = 'Processed' AND fuel IS NOT NULL AND escrow IS NOT NULL`), 1)
	expect("net income = sum of lines", count(`SELECT count(*) FROM settlement_statements s WHERE s.tenant_id = $1 AND s.net_income IS NOT NULL
		AND s.net_income <> (SELECT coalesce(sum(amount), 0) FROM statement_line_items l WHERE l.statement_id = s.id)`), 0)
	expect("owner operators without company name", count(`SELECT count(*) FROM drivers WHERE tenant_id = $1 AND type = 'OWNER_OPERATOR' AND company_name IS NULL`), 0)

	// Statement lines: categories and their sign and nullability rules.
	for _, cat := range []string{"Per Trip", "Accessorial", "Fuel", "Deduction", "Escrow"} {
		atLeast("lines of "+cat, count(`SELECT count(*) FROM statement_line_items WHERE tenant_id = $1 AND category = $2`, cat), 1)
	}
	atLeast("escrow deposits", count(`SELECT count(*) FROM statement_line_items WHERE tenant_id = $1 AND transaction_type = 'Deposit'`), 1)
	atLeast("escrow withdrawals", count(`SELECT count(*) FROM statement_line_items WHERE tenant_id = $1 AND transaction_type = 'Withdrawal'`), 1)
	expect("non-negative escrow deposits", count(`SELECT count(*) FROM statement_line_items WHERE tenant_id = $1 AND transaction_type = 'Deposit' AND amount >= 0`), 0)
	expect("non-positive escrow withdrawals", count(`SELECT count(*) FROM statement_line_items WHERE tenant_id = $1 AND transaction_type = 'Withdrawal' AND amount <= 0`), 0)
	expect("escrow lines without transaction type", count(`SELECT count(*) FROM statement_line_items WHERE tenant_id = $1 AND category = 'Escrow' AND transaction_type IS NULL`), 0)
	expect("other lines with a transaction type", count(`SELECT count(*) FROM statement_line_items WHERE tenant_id = $1 AND category <> 'Escrow' AND transaction_type IS NOT NULL`), 0)
	expect("non-negative deductions", count(`SELECT count(*) FROM statement_line_items WHERE tenant_id = $1 AND category = 'Deduction' AND amount >= 0`), 0)
	expect("statement-level lines naming a policy, trip or load", count(`SELECT count(*) FROM statement_line_items WHERE tenant_id = $1
		AND category IN ('Deduction', 'Escrow', 'Fuel', 'Reimbursement') AND (policy_name IS NOT NULL OR trip_number IS NOT NULL OR load_number IS NOT NULL)`), 0)
	expect("trip lines without policy, trip or load", count(`SELECT count(*) FROM statement_line_items WHERE tenant_id = $1
		AND category = 'Per Trip' AND (policy_name IS NULL OR trip_number IS NULL OR load_number IS NULL)`), 0)
	expect("trip lines naming unknown loads", count(`SELECT count(*) FROM statement_line_items l WHERE l.tenant_id = $1 AND l.load_number IS NOT NULL
		AND NOT EXISTS (SELECT 1 FROM loads d WHERE d.tenant_id = l.tenant_id AND d.load_number = l.load_number)`), 0)
	atLeast("sub-lines", count(`SELECT count(*) FROM statement_sub_lines WHERE tenant_id = $1`), 1)
	atLeast("trip lines without sub-lines", count(`SELECT count(*) FROM statement_line_items l WHERE l.tenant_id = $1 AND l.category = 'Per Trip'
		AND NOT EXISTS (SELECT 1 FROM statement_sub_lines s WHERE s.line_item_id = l.id)`), 1)
	expect("lines whose amount differs from their sub-lines", count(`SELECT count(*) FROM statement_line_items l WHERE l.tenant_id = $1
		AND EXISTS (SELECT 1 FROM statement_sub_lines s WHERE s.line_item_id = l.id)
		AND l.amount <> (SELECT sum(amount) FROM statement_sub_lines s WHERE s.line_item_id = l.id)`), 0)

	// Invoices: every type × status, the full one, the money rules.
	expect("invoice type × status combinations", count(`SELECT count(*) FROM (SELECT DISTINCT type, status FROM invoices WHERE tenant_id = $1) x`), 12)
	expect("well-known invoices", len(res.Invoices), 12)
	for _, inv := range res.Invoices {
		expect("invoice "+inv.Number, count(`SELECT count(*) FROM invoices WHERE tenant_id = $1 AND id = $2 AND number = $3 AND type = $4 AND status = $5`,
			inv.ID, inv.Number, string(inv.Type), string(inv.Status)), 1)
	}
	full := res.Invoice
	if full.Type != reads.LoadInvoice || full.Status != reads.InvoicePaid {
		t.Errorf("the full invoice is %s/%s", full.Type, full.Status)
	}
	atLeast("full invoice payments", count(`SELECT count(*) FROM invoice_payments WHERE tenant_id = $1 AND invoice_id = $2`, full.ID), 1)
	atLeast("full invoice lines", count(`SELECT count(*) FROM invoice_line_items WHERE tenant_id = $1 AND invoice_id = $2`, full.ID), 2)
	expect("full invoice loads", count(`SELECT count(*) FROM invoice_loads WHERE tenant_id = $1 AND invoice_id = $2`, full.ID), 1)
	expect("full invoice vendor and customer", count(`SELECT count(*) FROM invoices WHERE tenant_id = $1 AND id = $2 AND vendor_id IS NOT NULL AND customer_id IS NOT NULL`, full.ID), 1)
	expect("total = sum of lines", count(`SELECT count(*) FROM invoices i WHERE i.tenant_id = $1
		AND i.total <> (SELECT sum(amount) FROM invoice_line_items l WHERE l.invoice_id = i.id)`), 0)
	expect("amount paid = sum of payments", count(`SELECT count(*) FROM invoices i WHERE i.tenant_id = $1
		AND i.amount_paid <> (SELECT coalesce(sum(amount), 0) FROM invoice_payments p WHERE p.invoice_id = i.id)`), 0)
	expect("remaining balance", count(`SELECT count(*) FROM invoices WHERE tenant_id = $1 AND remaining_balance <> total - amount_paid + over_payment_amount`), 0)
	expect("unpaid Paid invoices", count(`SELECT count(*) FROM invoices WHERE tenant_id = $1 AND status = 'Paid' AND (remaining_balance <> 0 OR paid_date IS NULL)`), 0)
	expect("Draft invoices sent or paid", count(`SELECT count(*) FROM invoices WHERE tenant_id = $1 AND status = 'Draft' AND (invoiced_date IS NOT NULL OR amount_paid <> 0 OR is_submitted)`), 0)
	expect("standalone invoices with loads", count(`SELECT count(*) FROM invoice_loads l JOIN invoices i ON i.id = l.invoice_id WHERE i.tenant_id = $1 AND i.type = 'StandaloneInvoice'`), 0)
	atLeast("summary invoices with several loads", count(`SELECT count(*) FROM (SELECT invoice_id FROM invoice_loads WHERE tenant_id = $1 GROUP BY invoice_id HAVING count(*) > 1) x`), 1)
	atLeast("overpaid invoices", count(`SELECT count(*) FROM invoices WHERE tenant_id = $1 AND over_payment_amount > 0`), 1)
	atLeast("supplemental invoices", count(`SELECT count(*) FROM invoices WHERE tenant_id = $1 AND supplemental_invoice_type IS NOT NULL`), 1)

	// Loads, stops, trips.
	expect("load statuses", count(`SELECT count(DISTINCT status) FROM loads WHERE tenant_id = $1`), len(domain.LoadStatuses))
	expect("billing statuses", count(`SELECT count(DISTINCT billing_status) FROM loads WHERE tenant_id = $1`), len(domain.BillingStatuses))
	expect("trips of the load without trips", count(`SELECT count(*) FROM trips t JOIN loads l ON l.id = t.load_id WHERE t.tenant_id = $1 AND l.load_number = $2`, res.LoadWithoutTrips), 0)
	expect("the well-known trip", count(`SELECT count(*) FROM trips t JOIN loads l ON l.id = t.load_id WHERE t.tenant_id = $1 AND l.load_number = $2 AND t.id = $3`, res.LoadWithTrips, res.TripID), 1)
	atLeast("loads without trips", count(`SELECT count(*) FROM loads l WHERE tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM trips t WHERE t.load_id = l.id)`), 100)
	expect("loads not starting with a pickup and ending with a delivery", count(`SELECT count(*) FROM loads l WHERE l.tenant_id = $1 AND (
		(SELECT type FROM stops s WHERE s.load_id = l.id ORDER BY sequence LIMIT 1) <> 'Pickup' OR
		(SELECT type FROM stops s WHERE s.load_id = l.id ORDER BY sequence DESC LIMIT 1) <> 'Delivery')`), 0)
	atLeast("stops with appointments", count(`SELECT count(*) FROM stops WHERE tenant_id = $1 AND appointment_start IS NOT NULL`), 1)
	atLeast("team trips", count(`SELECT count(*) FROM trips WHERE tenant_id = $1 AND cardinality(driver_ids) = 2`), 1)
	atLeast("brokered trips", count(`SELECT count(*) FROM trips WHERE tenant_id = $1 AND carrier_id IS NOT NULL AND cardinality(driver_ids) = 0`), 1)
	atLeast("trips of the well-known driver", count(`SELECT count(*) FROM trips WHERE tenant_id = $1 AND $2 = ANY(driver_ids)`, res.DriverID), 1)
	expect("trips with unknown drivers", count(`SELECT count(*) FROM trips t, unnest(t.driver_ids) d WHERE t.tenant_id = $1 AND NOT EXISTS (SELECT 1 FROM drivers x WHERE x.id = d)`), 0)
	expect("the well-known carrier", count(`SELECT count(*) FROM carriers WHERE tenant_id = $1 AND id = $2`, res.CarrierID), 1)
	expect("the well-known driver", count(`SELECT count(*) FROM drivers WHERE tenant_id = $1 AND id = $2 AND fleet_id IS NOT NULL`, res.DriverID), 1)
	expect("the well-known trailer", count(`SELECT count(*) FROM trailers WHERE tenant_id = $1 AND id = $2`, res.TrailerID), 1)

	// Trailers, locations, users.
	expect("trailer statuses", count(`SELECT count(DISTINCT status) FROM trailers WHERE tenant_id = $1`), len(reads.TrailerStatuses))
	expect("trailer equipment types", count(`SELECT count(DISTINCT equipment_type) FROM trailers WHERE tenant_id = $1`), len(reads.TrailerEquipmentTypes))
	expect("trailer sizes", count(`SELECT count(DISTINCT equipment_size) FROM trailers WHERE tenant_id = $1`), len(reads.TrailerEquipmentSizes))
	expect("licence countries", count(`SELECT count(DISTINCT license_country) FROM trailers WHERE tenant_id = $1`), len(reads.LicenseCountries))
	atLeast("bare trailers", count(`SELECT count(*) FROM trailers WHERE tenant_id = $1 AND status IS NULL AND make IS NULL AND fleet_id IS NULL`), 1)
	atLeast("trailers with notes and references", count(`SELECT count(*) FROM trailers WHERE tenant_id = $1 AND jsonb_array_length(notes) > 0 AND jsonb_array_length(refs) > 0`), 1)
	atLeast("trailers with a fleet", count(`SELECT count(*) FROM trailers WHERE tenant_id = $1 AND fleet_id IS NOT NULL`), 1)
	expect("location type × status", count(`SELECT count(*) FROM (SELECT DISTINCT type, status FROM locations WHERE tenant_id = $1) x`), 12)
	expect("well-known locations", count(`SELECT count(*) FROM locations WHERE tenant_id = $1 AND id = ANY($2)`, res.LocationIDs), 12)
	atLeast("location notes", count(`SELECT count(*) FROM location_notes WHERE tenant_id = $1`), 1)
	atLeast("locations with an external id", count(`SELECT count(*) FROM locations WHERE tenant_id = $1 AND external_id IS NOT NULL`), 1)
	expect("user roles", count(`SELECT count(DISTINCT role) FROM users WHERE tenant_id = $1`), 8)
	expect("user statuses", count(`SELECT count(DISTINCT status) FROM users WHERE tenant_id = $1`), len(reads.UserStatuses))
	expect("users without permissions", count(`SELECT count(*) FROM users WHERE tenant_id = $1 AND cardinality(permissions) = 0`), 0)
	atLeast("external users", count(`SELECT count(*) FROM users WHERE tenant_id = $1 AND user_type = 'External'`), 1)
}
