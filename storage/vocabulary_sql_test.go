package storage_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

var (
	// A status or state compared with a literal in storage's SQL (the
	// schema's own lists are read back from the database by
	// TestSQLVocabulariesAreTheGoOnes).
	literalCompare = regexp.MustCompile(`(?i)\b(status|state)\s*(?:=|<>|!=)\s*'([^']*)'`)
	literalIn      = regexp.MustCompile(`(?i)\b(status|state)\s+(?:NOT\s+)?IN\s*\(([^)]*'[^)]*)\)`)
)

// TestStorageSQLLiteralsAreVocabularyValues reads storage's Go sources and
// holds every status or state its SQL compares with a literal to a value of
// a Go vocabulary: a value renamed in Go but left behind in a statement fails
// here rather than silently matching no row.
func TestStorageSQLLiteralsAreVocabularyValues(t *testing.T) {
	t.Parallel()
	known := map[string][]string{
		"state": values([]webhooks.State{webhooks.WebhookDisabled, webhooks.WebhookPending, webhooks.WebhookActive,
			webhooks.WebhookFailedVerification}),
		"status": slices.Concat(
			[]string{webhooks.DeliveryPending, webhooks.DeliveryDelivered, webhooks.DeliveryFailed},
			values(reads.StatementStatuses), values(reads.InvoiceStatuses), values(reads.TrailerStatuses),
			values(reads.LocationStatuses), values(reads.UserStatuses), values(domain.LoadStatuses)),
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		check := func(column, value string) {
			checked++
			if !slices.Contains(known[strings.ToLower(column)], value) {
				t.Errorf("%s: SQL compares %s with %q, which no Go vocabulary of a %s has", f, column, value, column)
			}
		}
		for _, m := range literalCompare.FindAllStringSubmatch(string(src), -1) {
			check(m[1], m[2])
		}
		for _, m := range literalIn.FindAllStringSubmatch(string(src), -1) {
			for _, v := range literals(m[2]) {
				check(m[1], v)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no status or state literal found in storage's SQL: the patterns no longer match it")
	}
}
