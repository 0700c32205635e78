package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
)

var (
	tenantsActions = []action{
		{name: "create", synopsis: "--slug SLUG --name NAME [--json]", flags: []string{"slug", "name", "json"}, required: []string{"slug"}},
		{name: "list", synopsis: "[--json]", flags: []string{"json"}},
	}
	subsidiariesActions = []action{
		{name: "create", synopsis: "--tenant SLUG --name NAME [--json]", flags: []string{"tenant", "name", "json"}, required: []string{"tenant", "name"}},
		{name: "list", synopsis: "--tenant SLUG [--json]", flags: []string{"tenant", "json"}, required: []string{"tenant"}},
	}
)

const tenantsNotes = `create is idempotent: the same slug (tenant) or name (subsidiary) again
prints the existing one; a tenant slug with another name is refused.
`

// tenantsCmd runs `haulgraph tenants …` and `haulgraph subsidiaries …`.
func tenantsCmd(ctx context.Context, kind string, args []string) error {
	db, err := openMigrated(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	return runTenants(ctx, db, kind, args, os.Stdout)
}

// tenantFlags defines the tenants and subsidiaries flags on fs.
func tenantFlags(fs *flag.FlagSet) (slug, tenant, name *string, asJSON *bool) {
	return fs.String("slug", "", "tenant slug (tenants create)"),
		fs.String("tenant", "", "tenant slug (subsidiaries)"),
		fs.String("name", "", "display name"),
		fs.Bool("json", false, "print JSON")
}

// runTenants is the command proper; kind is "tenants" or "subsidiaries".
func runTenants(ctx context.Context, db *storage.DB, kind string, args []string, out io.Writer) error {
	if len(args) == 0 || (args[0] != "create" && args[0] != "list") {
		return usageError("no action given (create, list)")
	}
	fs := flag.NewFlagSet(kind+" "+args[0], flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	slug, tenant, name, asJSON := tenantFlags(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return usageError(err.Error())
	}
	if fs.NArg() > 0 {
		return usageError("unexpected argument " + fs.Arg(0))
	}
	svc := &domain.Tenancy{Store: &storage.Tenants{DB: db}}
	switch kind + " " + args[0] {
	case "tenants create":
		if *slug == "" {
			return usageError("--slug is required")
		}
		t, created, err := svc.CreateTenant(ctx, *slug, *name)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(out, map[string]any{"id": t.ID, "slug": t.Slug, "name": t.Name, "created_at": t.CreatedAt, "created": created})
		}
		verb := "created"
		if !created {
			verb = "already exists"
		}
		fmt.Fprintf(out, "tenant %s (%s) %s: id %s\n", t.Slug, t.Name, verb, t.ID)
		return nil
	case "tenants list":
		list, err := svc.ListTenants(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			if list == nil {
				list = []domain.Tenant{}
			}
			return writeJSON(out, list)
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "SLUG\tNAME\tID\tCREATED")
		for _, t := range list {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.Slug, t.Name, t.ID, t.CreatedAt.UTC().Format("2006-01-02"))
		}
		return tw.Flush()
	case "subsidiaries create":
		if *tenant == "" {
			return usageError("--tenant is required")
		}
		s, created, err := svc.CreateSubsidiary(ctx, *tenant, *name)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(out, map[string]any{"id": s.ID, "tenant_id": s.TenantID, "name": s.Name, "created": created})
		}
		verb := "created"
		if !created {
			verb = "already exists"
		}
		fmt.Fprintf(out, "subsidiary %q of %s %s: id %s\n", s.Name, *tenant, verb, s.ID)
		return nil
	default: // subsidiaries list
		if *tenant == "" {
			return usageError("--tenant is required")
		}
		list, err := svc.ListSubsidiaries(ctx, *tenant)
		if err != nil {
			return err
		}
		if *asJSON {
			if list == nil {
				list = []domain.Subsidiary{}
			}
			return writeJSON(out, list)
		}
		tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME")
		for _, s := range list {
			fmt.Fprintf(tw, "%s\t%s\n", s.ID, s.Name)
		}
		return tw.Flush()
	}
}
