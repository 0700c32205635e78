// Package readstest writes a small, fully known tenant for the read tests
// (storage and GraphQL).
package readstest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/storage"
)

// Fixture names what Seed wrote.
type Fixture struct {
	Tenant, Sub, Fleet, Customer, Vendor, Carrier, Invoice, Load, Trailer, Location uuid.UUID
	Drivers                                                                         [3]uuid.UUID // COMPANY, OWNER_OPERATOR, CONTRACTOR
}

// Day0 is the first statement date.
var Day0 = time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)

// NewTenant creates a tenant and its subsidiary, then Seeds it with 30
// statements.
func NewTenant(t testing.TB, db *storage.DB, slug string) Fixture {
	t.Helper()
	tenant, sub := uuid.New(), uuid.New()
	err := db.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO tenants (id, slug, name) VALUES (?, ?, ?)", tenant, slug, slug); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'North')", sub, tenant)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return Seed(t, db, tenant, sub, slug, 30)
}

// Seed writes into an existing tenant and subsidiary: 3 drivers; statements
// 1..n on days 0..n-1 cycling the drivers, Processed except #5 Failed, #6
// Generating, #7 Draft; each statement has 2 lines (Per Trip; Escrow Deposit)
// with 2 sub-lines each; 1 invoice (INV-1), 1 load (L-100) with 2 stops and
// 1 trip, 1 trailer, 5 locations (Active, Active, Disabled, Inactive,
// Active), 5 users (user0..user4).
func Seed(t testing.TB, db *storage.DB, tenant, sub uuid.UUID, slug string, statements int) Fixture {
	t.Helper()
	f := Fixture{Tenant: tenant, Sub: sub, Fleet: uuid.New(), Customer: uuid.New(), Vendor: uuid.New(),
		Carrier: uuid.New(), Invoice: uuid.New(), Load: uuid.New(), Trailer: uuid.New(), Location: uuid.New()}
	for i := range f.Drivers {
		f.Drivers[i] = uuid.New()
	}
	types := []string{"COMPANY", "OWNER_OPERATOR", "CONTRACTOR"}
	err := db.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		ex := func(q string, args ...any) {
			if _, err := tx.ExecContext(ctx, q, args...); err != nil {
				t.Fatalf("fixture %q: %v", q, err)
			}
		}
		ex("INSERT INTO fleets (id, tenant_id, name, invoice_number_prefix) VALUES (?, ?, 'Fleet A', 'FA')", f.Fleet, f.Tenant)
		for i, d := range f.Drivers {
			var company any
			if types[i] == "OWNER_OPERATOR" {
				company = "Owner LLC"
			}
			ex("INSERT INTO drivers (id, tenant_id, name, type, company_name, subsidiary_id, fleet_id) VALUES (?, ?, ?, ?, ?, ?, ?)",
				d, f.Tenant, fmt.Sprintf("Driver %d", i), types[i], company, f.Sub, f.Fleet)
		}
		for n := 1; n <= statements; n++ {
			status := "Processed"
			switch n {
			case 5:
				status = "Failed"
			case 6:
				status = "Generating"
			case 7:
				status = "Draft"
			}
			id := uuid.New()
			d := (n - 1) % 3
			ex(`INSERT INTO settlement_statements (id, tenant_id, number, status, statement_date, pay_period_id,
				pay_period_title, driver_id, driver_type, currency, gross_income, net_income, number_of_trips, loaded_miles)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 840, ?, ?, 2, 512.5)`, id, f.Tenant, n, status, Day0.AddDate(0, 0, n-1),
				fmt.Sprintf("PP-%d", n), fmt.Sprintf("Week %d", n), f.Drivers[d], types[d], fmt.Sprintf("%d.10", 1000+n), fmt.Sprintf("%d.05", 800+n))
			for li := 0; li < 2; li++ {
				lid := uuid.New()
				cat, tt := "Per Trip", any(nil)
				if li == 1 {
					cat, tt = "Escrow", "Deposit"
				}
				ex(`INSERT INTO statement_line_items (id, tenant_id, statement_id, position, category, title, amount, currency, transaction_type)
					VALUES (?, ?, ?, ?, ?, ?, ?, 840, ?)`, lid, f.Tenant, id, li, cat, fmt.Sprintf("line %d", li), "-12.34", tt)
				for si := 0; si < 2; si++ {
					ex(`INSERT INTO statement_sub_lines (id, tenant_id, line_item_id, position, description, quantity, rate, amount, currency)
						VALUES (?, ?, ?, ?, ?, '2', '3.50', 7.00, 840)`, uuid.New(), f.Tenant, lid, si, fmt.Sprintf("sub %d", si))
				}
			}
		}
		ex(`INSERT INTO customers (id, tenant_id, name, email_addresses, billing_city) VALUES (?, ?, 'Acme', '{a@acme.test}', 'Reno')`, f.Customer, f.Tenant)
		ex(`INSERT INTO vendors (id, tenant_id, name, remit_city) VALUES (?, ?, 'Haul Co', 'Boise')`, f.Vendor, f.Tenant)
		ex(`INSERT INTO carriers (id, tenant_id, name, mc_number) VALUES (?, ?, 'Carrier X', 'MC1')`, f.Carrier, f.Tenant)
		ex(`INSERT INTO trailers (id, tenant_id, created_at, trailer_num, status, fleet_id, year, capacity_pallets, notes, refs)
			VALUES (?, ?, ?, 'T-1', 'Active', ?, 2020, 26, '[{"Id":"n1","Description":"dent","NoteType":"Damage","Time":"2025-01-02T03:04:05Z","User":"ann"}]', '[{"Type":"ELD","Value":"42"}]')`,
			f.Trailer, f.Tenant, Day0, f.Fleet)
		for i := 0; i < 5; i++ {
			id := uuid.New()
			if i == 0 {
				id = f.Location
			}
			status := []string{"Active", "Active", "Disabled", "Inactive", "Active"}[i]
			ex(`INSERT INTO locations (id, tenant_id, name, type, status, city, email, date_created) VALUES (?, ?, ?, 'Terminal', ?, 'Reno', '{x@y.test}', ?)`,
				id, f.Tenant, fmt.Sprintf("Site %d", i), status, Day0.AddDate(0, 0, i))
			ex(`INSERT INTO location_notes (id, tenant_id, location_id, description, note_type, time, author) VALUES (?, ?, ?, 'gate code', 'Info', ?, 'bob')`,
				uuid.New(), f.Tenant, id, Day0)
			ex(`INSERT INTO users (id, tenant_id, user_name, name, email, user_type, role, status, permissions, created_at, modified_at)
				VALUES (?, ?, ?, ?, ?, 'Internal', 'Dispatcher', 'Active', '{loads.view}', ?, ?)`, uuid.New(), f.Tenant,
				fmt.Sprintf("user%d", i), fmt.Sprintf("User %d", i), fmt.Sprintf("u%d@%s.test", i, slug), Day0, Day0)
		}
		ex(`INSERT INTO loads (id, tenant_id, load_number, status, billing_status, subsidiary_id, customer_id, rate, weight, created_at, updated_at)
			VALUES (?, ?, 'L-100', 'Covered', 'Invoiced', ?, ?, 1500.25, 40000, ?, ?)`, f.Load, f.Tenant, f.Sub, f.Customer, Day0, Day0)
		for s := 1; s <= 2; s++ {
			typ := map[int]string{1: "Pickup", 2: "Delivery"}[s]
			ex(`INSERT INTO stops (id, tenant_id, load_id, sequence, type, location_id, name) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				uuid.New(), f.Tenant, f.Load, s, typ, f.Location, typ)
		}
		ex(`INSERT INTO trips (id, tenant_id, load_id, trip_number, status, driver_ids, trailer_id, carrier_id, created_at, updated_at)
			VALUES (?, ?, ?, 'TR-1', 'Dispatched', ARRAY[?, ?]::uuid[], ?, ?, ?, ?)`, uuid.New(), f.Tenant, f.Load,
			f.Drivers[0], f.Drivers[1], f.Trailer, f.Carrier, Day0, Day0)
		ex(`INSERT INTO invoices (id, tenant_id, number, type, status, created_date, total, amount_paid, remaining_balance, vendor_id, customer_id)
			VALUES (?, ?, 'INV-1', 'LoadInvoice', 'AwaitingPayment', ?, 1500.25, 500, 1000.25, ?, ?)`, f.Invoice, f.Tenant, Day0, f.Vendor, f.Customer)
		ex(`INSERT INTO invoice_line_items (id, tenant_id, invoice_id, position, name, amount, rate_unit_of_measurement, rate_units, rate_rate, load_number)
			VALUES (?, ?, ?, 0, 'Linehaul', 1500.25, 'Mile', 500, 3.0005, 'L-100')`, uuid.New(), f.Tenant, f.Invoice)
		ex(`INSERT INTO invoice_loads (tenant_id, invoice_id, load_id) VALUES (?, ?, ?)`, f.Tenant, f.Invoice, f.Load)
		ex(`INSERT INTO invoice_payments (id, tenant_id, invoice_id, payment_date, amount, check_number) VALUES (?, ?, ?, ?, 500, 'CHK-9')`,
			uuid.New(), f.Tenant, f.Invoice, Day0)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return f
}
