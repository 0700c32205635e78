package storage_test

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

func values[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// enumChecks is every CHECK constraint of the migrated schema that lists a
// column's values, by table.column, and the Go vocabulary it repeats.
var enumChecks = map[string][]string{
	"drivers.type":                          values(domain.DriverTypes),
	"locations.status":                      values(reads.LocationStatuses),
	"users.status":                          values(reads.UserStatuses),
	"trailers.status":                       values(reads.TrailerStatuses),
	"trailers.license_country":              reads.LicenseCountries,
	"loads.status":                          values(domain.LoadStatuses),
	"loads.billing_status":                  values(domain.BillingStatuses),
	"stops.type":                            values(domain.StopTypes),
	"invoices.type":                         values(reads.InvoiceTypes),
	"invoices.status":                       values(reads.InvoiceStatuses),
	"settlement_statements.status":          values(reads.StatementStatuses),
	"settlement_statements.driver_type":     values(domain.DriverTypes),
	"statement_line_items.transaction_type": values(reads.TransactionTypes),
	"documents.parent_type":                 values(domain.DocumentParentTypes),
	"webhooks.state": values([]webhooks.State{webhooks.WebhookDisabled, webhooks.WebhookPending,
		webhooks.WebhookActive, webhooks.WebhookFailedVerification}),
	"webhook_deliveries.status": {webhooks.DeliveryPending, webhooks.DeliveryDelivered, webhooks.DeliveryFailed},
	"webhooks.signature_scheme": values(webhooks.SignatureSchemes),
	"webhooks.type":             values(webhooks.Types),
}

// partialIndexes is every partial index whose predicate lists values, by
// name, and the Go values the reads that use it select.
var partialIndexes = map[string][]string{
	"statements_search":             values(reads.VisibleStatementStatuses),
	"statements_by_type":            values(reads.VisibleStatementStatuses),
	"statements_by_driver":          values(reads.VisibleStatementStatuses),
	"webhook_deliveries_failed":     {webhooks.DeliveryFailed},
	"webhook_deliveries_due":        {webhooks.DeliveryPending},
	"webhook_deliveries_pending":    {webhooks.DeliveryPending},
	"webhook_deliveries_load_order": {webhooks.DeliveryPending},
}

var (
	// PostgreSQL's deparsed forms: col = ANY (ARRAY['a'::text, …]) and col = 'a'::text.
	anyList  = regexp.MustCompile(`\(?(\w+) = ANY \(ARRAY\[([^\]]*)\]\)`)
	oneValue = regexp.MustCompile(`\(?(\w+) = ('[^']*'::text)\)?`)
	literal  = regexp.MustCompile(`'((?:[^']|'')*)'`)
	sourceIn = regexp.MustCompile(`(?i)status\s+IN\s*\(([^)]*)\)`)
	sameSet  = func(a, b []string) bool {
		return slices.Equal(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
	}
	literals = func(s string) []string {
		var out []string
		for _, m := range literal.FindAllStringSubmatch(s, -1) {
			out = append(out, strings.ReplaceAll(m[1], "''", "'"))
		}
		return out
	}
)

// TestSQLVocabulariesAreTheGoOnes reads the constraints, partial indexes
// and trigger functions of a migrated database and holds every list of
// values they repeat equal to its Go vocabulary: a value added on one side
// only fails here, not in production as a CHECK violation or a statement
// the API shows but the counts miss.
func TestSQLVocabulariesAreTheGoOnes(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()

	rows, err := db.Pool.Query(ctx, `SELECT conrelid::regclass::text, pg_get_constraintdef(oid) FROM pg_constraint
		WHERE contype = 'c' AND connamespace = 'public'::regnamespace`)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for rows.Next() {
		var table, def string
		if err := rows.Scan(&table, &def); err != nil {
			t.Fatal(err)
		}
		m := anyList.FindStringSubmatch(def)
		if m == nil {
			continue // not a list of values (a pattern, a relation between columns)
		}
		key := table + "." + m[1]
		seen[key] = true
		want, ok := enumChecks[key]
		if !ok {
			t.Errorf("%s: CHECK lists values no Go vocabulary is tied to (add it to enumChecks): %s", key, def)
			continue
		}
		if got := literals(m[2]); !sameSet(got, want) {
			t.Errorf("%s: the CHECK allows %v, Go has %v", key, got, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for key := range enumChecks {
		if !seen[key] {
			t.Errorf("%s: no CHECK constraint lists its values any more", key)
		}
	}

	rows, err = db.Pool.Query(ctx, `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND indexdef LIKE '% WHERE %'`)
	if err != nil {
		t.Fatal(err)
	}
	seen = map[string]bool{}
	for rows.Next() {
		var name, def string
		if err := rows.Scan(&name, &def); err != nil {
			t.Fatal(err)
		}
		pred := def[strings.LastIndex(def, " WHERE ")+len(" WHERE "):]
		var got []string
		if m := anyList.FindStringSubmatch(pred); m != nil {
			got = literals(m[2])
		} else if m := oneValue.FindStringSubmatch(pred); m != nil {
			got = literals(m[2])
		} else {
			continue // a predicate without values (IS NULL, a comparison of columns)
		}
		seen[name] = true
		want, ok := partialIndexes[name]
		if !ok {
			t.Errorf("index %s: its predicate lists values no Go vocabulary is tied to (add it to partialIndexes): %s", name, pred)
			continue
		}
		if !sameSet(got, want) {
			t.Errorf("index %s covers %v, the reads select %v", name, got, want)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for name := range partialIndexes {
		if !seen[name] {
			t.Errorf("index %s: missing, or its predicate lists no values any more", name)
		}
	}

	// The per-day statement counts (0018) count the visible statements: in
	// the trigger function, and in the migration's one-time backfill.
	var src string
	if err := db.Pool.QueryRow(ctx, `SELECT prosrc FROM pg_proc WHERE proname = 'statement_counts_apply'`).Scan(&src); err != nil {
		t.Fatal(err)
	}
	migration, err := os.ReadFile("migrations/0018_statement_counts.sql")
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"statement_counts_apply()": src, "migration 0018": string(migration)} {
		lists := sourceIn.FindAllStringSubmatch(text, -1)
		if len(lists) == 0 {
			t.Errorf("%s: no status list found", what)
		}
		for _, m := range lists {
			if got, want := literals(m[1]), values(reads.VisibleStatementStatuses); !sameSet(got, want) {
				t.Errorf("%s counts statuses %v, the reads show %v", what, got, want)
			}
		}
	}
}

// TestLoadReferencesAreTheForeignKeys: the tables a load or trip write may
// reference (loads.RefTables, whose rows storage checks are the tenant's)
// are exactly the tables loads, stops and trips have foreign keys to, and
// each has the tenant_id the check reads.
func TestLoadReferencesAreTheForeignKeys(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	rows, err := db.Pool.Query(ctx, `SELECT DISTINCT confrelid::regclass::text FROM pg_constraint
		WHERE contype = 'f' AND conrelid IN ('loads'::regclass, 'stops'::regclass, 'trips'::regclass)
		  AND confrelid NOT IN ('tenants'::regclass, 'loads'::regclass)`)
	if err != nil {
		t.Fatal(err)
	}
	var referenced []string
	for rows.Next() {
		var table string
		if err := rows.Scan(&table); err != nil {
			t.Fatal(err)
		}
		referenced = append(referenced, table)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	// Trip drivers are an array (no foreign key): drivers is referenced by
	// the statements, and listed here by the write's own rule.
	want := slices.DeleteFunc(values(loads.RefTables), func(s string) bool { return s == string(loads.RefDrivers) })
	if !sameSet(referenced, want) {
		t.Errorf("loads, stops and trips reference %v; loads.RefTables (without drivers) is %v", referenced, want)
	}
	for _, table := range loads.RefTables {
		var n int
		if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM information_schema.columns
			WHERE table_schema = 'public' AND table_name = $1 AND column_name IN ('id', 'tenant_id')`, string(table)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != 2 {
			t.Errorf("%s: a reference table without id and tenant_id", table)
		}
	}
}
