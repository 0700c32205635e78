// Package seed fills a tenant with deterministic, realistic demo data: the
// same tenant slug and scale always produce the same rows (name-based UUIDs
// over slug/kind/index, a PRNG seeded per row, timestamps from a fixed epoch;
// time.Now is never read). Tests use scale 1 as their fixture; scale 100 is
// the load test.
//
// Rows per scale N: statements 1000·N (40·N drivers × 25 weeks), loads 1000·N,
// invoices 120·N, locations 100·N, users 50·N, trailers 30·N, customers 30·N,
// trucks 40·N, carriers 10·N; 3 subsidiaries, 5 fleets, 4 vendors.
//
// Seeded windows (UTC): statements are dated weekly on Fridays 2025-01-03 …
// 2025-06-20 (the last week still Open/Draft/Generating, never visible);
// loads are created 2025-01-01 … 2025-06-29; locations 2023-01-01 …
// 2024-12-30; users 2022-01-01 … 2024-12-31.
//
// Writing uses COPY. Where it is safe (a superuser, no trigger or rule of
// another area on the tables) the per-row foreign-key triggers are skipped as
// pg_restore --disable-triggers does; the tests check every foreign key.
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
	"github.com/haulgraph/haulgraph/domain/reads"
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
	// CheckReferences keeps the database's per-row foreign-key checks even
	// where seeding could skip them (see bulkMode): slower, same rows.
	CheckReferences bool
}

// InvoiceRef names one seeded invoice.
type InvoiceRef struct {
	ID     uuid.UUID
	Number string
	Type   reads.InvoiceType
	Status reads.InvoiceStatus
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
	Statements map[reads.StatementStatus]int32
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

// seeder carries one run's state; each concurrent worker has its own copy
// with its own transaction and partial Result.
type seeder struct {
	tx   pgx.Tx
	ids  ids
	n    sizes
	res  *Result
	prog *progress
	ph   phases
	tid  uuid.UUID
	// skipRI: copy without per-row foreign-key checks (see bulkMode).
	skipRI bool
}

type phases struct{ reference, trailers, locations, users, loads, invoices, statements *phase }

// statementWorkers split the statements (the bulk of the rows) between
// connections: foreign-key checks, not Go, are what takes the time.
const statementWorkers = 2

// Run creates the tenant opt.Tenant and fills it. The tenant, its reference
// data, trailers, locations and users are written in one transaction; then
// loads with invoices and the statements are copied concurrently on their
// own connections. If anything fails, every row of the new tenant is deleted
// again. Run fails with ErrTenantExists when the slug is taken.
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
	tid := tenantID(opt.Tenant)
	p := &progress{w: opt.Progress, bar: opt.Bar, last: -1}
	s := &seeder{
		ids: ids{slug: opt.Tenant}, n: n, tid: tid, prog: p,
		ph: phases{
			reference: p.add("reference", n.subsidiaries+n.fleets+n.vendors+n.customers+n.carriers+n.drivers+n.trucks),
			trailers:  p.add("trailers", n.trailers), locations: p.add("locations", n.locations),
			users: p.add("users", n.users), loads: p.add("loads", n.loads),
			invoices: p.add("invoices", n.invoices), statements: p.add("statements", n.statements),
		},
	}
	var err error
	if !opt.CheckReferences {
		if s.skipRI, err = bulkMode(ctx, db); err != nil {
			return nil, err
		}
	}
	res := newResult()
	res.Tenant, res.Scale, res.TenantID = opt.Tenant, opt.Scale, tid
	res.StatementFrom = domain.DateOf(firstStatementDate)
	res.StatementTo = domain.DateOf(firstStatementDate.AddDate(0, 0, 7*(statementWeeks-1)))

	err = s.inTx(ctx, db, res, func(ctx context.Context, w *seeder) error {
		tag, err := w.tx.Exec(ctx, `INSERT INTO tenants (id, slug, name, created_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT DO NOTHING`, tid, opt.Tenant, opt.Name, epoch)
		if err != nil {
			return fmt.Errorf("seed: create tenant: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("%w: %q", ErrTenantExists, opt.Tenant)
		}
		w.res.Counts["tenants"] = 1
		for _, phase := range []func(context.Context) error{w.reference, w.trailers, w.locations, w.users} {
			if err := phase(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}

	work := []func(context.Context, *seeder) error{
		func(ctx context.Context, w *seeder) error {
			if err := w.loads(ctx); err != nil {
				return err
			}
			return w.invoices(ctx) // invoices link loads: same transaction
		},
	}
	for k := 0; k < statementWorkers; k++ {
		from, to := n.statements*k/statementWorkers, n.statements*(k+1)/statementWorkers
		work = append(work, func(ctx context.Context, w *seeder) error { return w.statements(ctx, from, to) })
	}
	if err := s.concurrently(ctx, db, res, work); err != nil {
		if cerr := deleteTenant(context.WithoutCancel(ctx), db, tid); cerr != nil {
			err = fmt.Errorf("%w (and removing the partial tenant failed: %v)", err, cerr)
		}
		return nil, err
	}
	if err := vacuumAnalyze(ctx, db); err != nil {
		return nil, err
	}
	return res, nil
}

// vacuumAnalyze ends a seed as autovacuum would, later: freshly copied rows
// have no planner statistics and no visibility map, so every index-only
// scan (the statement search's count) would visit the heap row by row, a
// state a production database does not stay in.
func vacuumAnalyze(ctx context.Context, db *storage.DB) error {
	for _, t := range seededTables {
		if _, err := db.Pool.Exec(ctx, "VACUUM (ANALYZE) "+t); err != nil {
			return fmt.Errorf("seed: vacuum %s: %w", t, err)
		}
	}
	return nil
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
