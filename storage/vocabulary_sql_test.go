package storage_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// TestStorageSQLWritesNoVocabularyLiteral reads storage's Go sources and
// fails on any status or state of a Go vocabulary written in them as an
// SQL literal ('Pending'): SQL that repeats a vocabulary is built from the
// Go values (sql_vocabulary.go), so a value renamed in Go cannot be left
// behind in a statement, silently matching no row, and the rules that pick
// a value stay the domain's.
func TestStorageSQLWritesNoVocabularyLiteral(t *testing.T) {
	t.Parallel()
	vocabulary := slices.Concat(
		values([]webhooks.State{webhooks.WebhookDisabled, webhooks.WebhookPending, webhooks.WebhookActive,
			webhooks.WebhookFailedVerification}),
		[]string{webhooks.DeliveryPending, webhooks.DeliveryDelivered, webhooks.DeliveryFailed},
		values(reads.StatementStatuses), values(reads.InvoiceStatuses), values(reads.TrailerStatuses),
		values(reads.LocationStatuses), values(reads.UserStatuses), values(domain.LoadStatuses))
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
		checked++
		for _, v := range vocabulary {
			if strings.Contains(string(src), "'"+strings.ReplaceAll(v, "'", "''")+"'") {
				t.Errorf("%s: SQL writes the literal '%s': build it from the Go value (sqlLiteral)", f, v)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("read %d of storage's files", checked)
	}
}
