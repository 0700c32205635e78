// Package seed fills a tenant with deterministic, realistic demo data: the
// same tenant slug and scale always produce the same rows (name-based UUIDs,
// a PRNG seeded per row, timestamps from a fixed epoch). Tests use scale 1 as
// their fixture; scale 100 is the load test (100,000 statements and loads).
//
// Seeded windows (UTC): loads are created 2025-01-01 … 2025-06-29; statements
// are dated weekly on Fridays 2025-01-03 … 2025-06-20 (25 weeks, the last week
// still Open/Draft/Generating); locations are created 2023-01-01 … 2024-12-30.
package seed

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
)

// MaxScale bounds a seed run (scale 1000 = a million statements).
const MaxScale = 1000

// ErrTenantExists is returned when the tenant slug is already taken: seeding
// never touches an existing tenant.
var ErrTenantExists = errors.New("seed: tenant already exists")

// Options selects what to seed.
type Options struct {
	Tenant   string    // tenant slug, e.g. "acme"
	Name     string    // display name; derived from the slug when empty
	Scale    int       // 1 = ~1,000 statements and loads; 0 means 1
	Progress io.Writer // where progress goes; nil for silence
	Bar      bool      // redraw one bar line (a terminal) instead of plain lines
}

// InvoiceRef names one seeded invoice.
type InvoiceRef struct {
	ID     uuid.UUID
	Number string
	Type   domain.InvoiceType
	Status domain.InvoiceStatus
}

// Result is what tests need to know about the seeded tenant.
type Result struct {
	TenantID      uuid.UUID
	Tenant        string
	Scale         int
	SubsidiaryID  uuid.UUID   // the first subsidiary
	SubsidiaryIDs []uuid.UUID // all of them

	// Invoice is a LoadInvoice in status Paid with line items, loads,
	// payments, a vendor and a customer.
	Invoice InvoiceRef
	// Invoices has one invoice of each type × status (12).
	Invoices []InvoiceRef

	// Statements maps each status (the four invisible ones included) to the
	// number of one statement in it.
	Statements map[domain.StatementStatus]int32
	// StatementFrom and StatementTo are the first and last statement dates.
	StatementFrom, StatementTo domain.Date
	// VisibleStatements counts Processed and Failed statements in the window;
	// VisibleByDriverType splits it by driver type.
	VisibleStatements   int
	VisibleByDriverType map[domain.DriverType]int
	// DriverID has visible statements, trips and a fleet.
	DriverID uuid.UUID
	// DriverVisibleStatements counts DriverID's visible statements.
	DriverVisibleStatements int

	LoadWithTrips    string    // a load number whose load has trips
	LoadWithoutTrips string    // a load number whose load has none
	TripID           uuid.UUID // a trip of LoadWithTrips
	CarrierID        uuid.UUID
	TrailerID        uuid.UUID
	// LocationIDs are the first locations: every type × status among them.
	LocationIDs []uuid.UUID

	// Counts is the number of rows written per table.
	Counts map[string]int
}

// sizes are the row counts of one scale.
type sizes struct {
	subsidiaries, fleets, vendors, customers, carriers, drivers, trucks int
	trailers, locations, users, loads, invoices, statements             int
}

// statementWeeks is fixed: statements = drivers × weeks at every scale.
const statementWeeks = 25

func sizesFor(n int) sizes {
	return sizes{
		subsidiaries: 3, fleets: 5, vendors: 4,
		customers: 30 * n, carriers: 10 * n, drivers: 40 * n, trucks: 40 * n,
		trailers: 30 * n, locations: 100 * n, users: 50 * n,
		loads: 1000 * n, invoices: 120 * n, statements: 40 * n * statementWeeks,
	}
}

var slugPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// seeder carries one run's state.
type seeder struct {
	tx   pgx.Tx
	ids  ids
	n    sizes
	res  *Result
	prog *progress
	tid  uuid.UUID
}

// Run creates the tenant opt.Tenant and fills it, all in one transaction:
// either the whole tenant exists afterwards or nothing was written. It fails
// with ErrTenantExists when the slug is taken.
func Run(ctx context.Context, db *storage.DB, opt Options) (*Result, error) {
	if !slugPattern.MatchString(opt.Tenant) {
		return nil, fmt.Errorf("seed: tenant slug %q must match %s", opt.Tenant, slugPattern)
	}
	if opt.Scale == 0 {
		opt.Scale = 1
	}
	if opt.Scale < 1 || opt.Scale > MaxScale {
		return nil, fmt.Errorf("seed: scale must be between 1 and %d", MaxScale)
	}
	if opt.Name == "" {
		opt.Name = displayName(opt.Tenant)
	}
	n := sizesFor(opt.Scale)
	s := &seeder{
		ids: ids{slug: opt.Tenant},
		n:   n,
		tid: tenantID(opt.Tenant),
		res: &Result{
			Tenant: opt.Tenant, Scale: opt.Scale, TenantID: tenantID(opt.Tenant),
			Statements:          map[domain.StatementStatus]int32{},
			VisibleByDriverType: map[domain.DriverType]int{},
			Counts:              map[string]int{},
		},
		prog: &progress{w: opt.Progress, bar: opt.Bar},
	}
	s.prog.total = n.subsidiaries + n.fleets + n.vendors + n.customers + n.carriers + n.drivers + n.trucks +
		n.trailers + n.locations + n.users + n.loads + n.invoices + n.statements

	tx, err := db.Pool.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("seed: begin: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx)) //nolint:errcheck // no-op after commit
	s.tx = tx

	tag, err := tx.Exec(ctx, `INSERT INTO tenants (id, slug, name, created_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT DO NOTHING`, s.tid, opt.Tenant, opt.Name, epoch)
	if err != nil {
		return nil, fmt.Errorf("seed: create tenant: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return nil, fmt.Errorf("%w: %q", ErrTenantExists, opt.Tenant)
	}
	s.res.Counts["tenants"] = 1

	phases := []func(context.Context) error{
		s.reference, s.trailers, s.locations, s.users, s.loads, s.invoices, s.statements,
	}
	for _, phase := range phases {
		if err := phase(ctx); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("seed: commit: %w", err)
	}
	s.prog.finish()
	return s.res, nil
}

// displayName turns "acme-freight" into "Acme Freight".
func displayName(slug string) string {
	words := strings.Split(slug, "-")
	for i, w := range words {
		if w != "" {
			words[i] = strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return strings.Join(words, " ")
}
