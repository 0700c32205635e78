package main

import (
	"context"
	"errors"
	"testing"

	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// serve --seed-demo seeds the tenant "demo" into an empty database only.
func TestSeedDemoOnlyIntoAnEmptyDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	empty := dbtest.New(t)
	res, err := seedDemo(ctx, empty)
	if err != nil {
		t.Fatal(err)
	}
	if res == nil || res.Tenant != "demo" || res.Counts["settlement_statements"] != 1000 {
		t.Fatalf("first start seeded %+v", res)
	}
	again, err := seedDemo(ctx, empty)
	if err != nil || again != nil {
		t.Fatalf("second start: %+v, %v; want nothing done", again, err)
	}

	used := dbtest.New(t)
	if _, err := seed.Run(ctx, used, seed.Options{Tenant: "acme"}); err != nil {
		t.Fatal(err)
	}
	res, err = seedDemo(ctx, used)
	if err != nil || res != nil {
		t.Fatalf("database with a tenant: %+v, %v; want nothing done", res, err)
	}
	var demo bool
	if err := used.Pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM tenants WHERE slug = 'demo')").Scan(&demo); err != nil || demo {
		t.Fatalf("demo tenant in a used database: %v, %v", demo, err)
	}
}

// haulgraph seed creates the tenant once and refuses to seed it again.
func TestSeedCommand(t *testing.T) {
	ctx := context.Background()
	t.Setenv("DATABASE_URL", dbtest.URL(t))
	if err := seedCommand(ctx, nil); err == nil {
		t.Fatal("seed without --tenant succeeded")
	}
	if err := seedCommand(ctx, []string{"--tenant", "acme", "--scale", "1"}); err != nil {
		t.Fatal(err)
	}
	if err := seedCommand(ctx, []string{"--tenant", "acme"}); !errors.Is(err, seed.ErrTenantExists) {
		t.Fatalf("second seed of acme: %v, want ErrTenantExists", err)
	}
	if err := seedCommand(ctx, []string{"--tenant", "big", "--scale", "5000"}); err == nil {
		t.Fatal("scale above the maximum accepted")
	}
}
