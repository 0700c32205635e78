package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// seedFlags defines the seed flags on fs.
func seedFlags(fs *flag.FlagSet) (tenant *string, scale *int, name *string) {
	return fs.String("tenant", "", "slug of the tenant to create and fill (required)"),
		fs.Int("scale", 1, fmt.Sprintf("size: 1 = ~1,000 statements and loads, 100 = 100,000 (max %d)", seed.MaxScale)),
		fs.String("name", "", "display name of the tenant (default: from the slug)")
}

// checkSeedFlags refuses a scale out of range before the database is opened.
func checkSeedFlags(_ string, fs *flag.FlagSet) error {
	if fs.Lookup("tenant").Value.String() == "" {
		return errors.New("--tenant is required")
	}
	if n, _ := strconv.Atoi(fs.Lookup("scale").Value.String()); n < 1 || n > seed.MaxScale {
		return fmt.Errorf("--scale %d: give 1 to %d", n, seed.MaxScale)
	}
	return nil
}

// seedCommand is `haulgraph seed --tenant SLUG [--scale N]`.
func seedCommand(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("seed", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	tenant, scale, name := seedFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError(err.Error())
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument " + fs.Arg(0))
	}
	if *tenant == "" {
		return usageError("--tenant is required")
	}
	db, err := openMigrated(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	started := time.Now()
	res, err := seed.Run(ctx, db, seed.Options{Tenant: *tenant, Name: *name, Scale: *scale, Progress: os.Stderr, Bar: isTerminal(os.Stderr)})
	if err != nil {
		return err
	}
	printSeedResult(os.Stdout, res, time.Since(started))
	return nil
}

// seedDemo seeds the tenant "demo" at scale 1 when the database holds no
// tenant yet (serve --seed-demo). It returns nil when there was nothing to do.
func seedDemo(ctx context.Context, db *storage.DB) (*seed.Result, error) {
	any, err := (&storage.Tenants{DB: db}).AnyTenant(ctx)
	if err != nil {
		return nil, err
	}
	if any {
		return nil, nil
	}
	res, err := seed.Run(ctx, db, seed.Options{Tenant: "demo", Name: "Demo Freight", Scale: 1, Progress: os.Stderr, Bar: isTerminal(os.Stderr)})
	if errors.Is(err, seed.ErrTenantExists) {
		return nil, nil // another instance seeded it first
	}
	if err != nil {
		return nil, err
	}
	printSeedResult(os.Stdout, res, 0)
	return res, nil
}

func printSeedResult(w io.Writer, res *seed.Result, took time.Duration) {
	fmt.Fprintf(w, "seeded tenant %q (id %s) at scale %d", res.Tenant, res.TenantID, res.Scale)
	if took > 0 {
		fmt.Fprintf(w, " in %s", took.Round(100*time.Millisecond))
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "  statements: %d (%d visible), dated %s … %s\n", res.Counts["settlement_statements"],
		res.VisibleStatements, res.StatementFrom.Format(time.DateOnly), res.StatementTo.Format(time.DateOnly))
	fmt.Fprintf(w, "  loads: %d, trips: %d, invoices: %d, locations: %d, users: %d, trailers: %d\n",
		res.Counts["loads"], res.Counts["trips"], res.Counts["invoices"], res.Counts["locations"], res.Counts["users"], res.Counts["trailers"])
	fmt.Fprintf(w, "  try: invoice %s, statement %d, load %s, driver %s\n",
		res.Invoice.Number, res.Statements["Processed"], res.LoadWithTrips, res.DriverID)
}

// isTerminal reports whether f is a terminal (draw a bar) or a pipe or file
// (print plain lines).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
