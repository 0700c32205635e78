package operation

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/haulgraph/haulgraph/domain"
)

// TestDocumentBytesCoversTheHeap: what documentBytes counts of a parsed
// document is at least what parsing it left on the heap (measured after a
// GC, the documents kept alive), and not grossly more, for a document of
// many values and one of many fields. Not parallel: the heap is the
// process's.
func TestDocumentBytesCoversTheHeap(t *testing.T) {
	ids := strings.TrimSuffix(strings.Repeat("1,", 4990), ",")
	fields := strings.Repeat("a: name b: id ", 1000)
	for name, text := range map[string]string{
		"4,990 values": `{ locations(filter: {locationIds: [` + ids + `]}, first: 1) { total } }`,
		"2,000 fields": `{ load(loadNumber: "1") { ` + fields + ` } }`,
	} {
		const n = 20
		docs := make([]*ast.QueryDocument, n)
		texts := make([]string, n)
		for i := range texts {
			texts[i] = fmt.Sprintf("%s #%d", text, i) // each its own source
		}
		heap := func() uint64 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return m.HeapAlloc
		}
		before := heap()
		for i := range docs {
			doc, err := parser.ParseQuery(&ast.Source{Input: texts[i]})
			if err != nil {
				t.Fatal(err)
			}
			docs[i] = doc
		}
		held := int(heap() - before)
		counted := 0
		for _, d := range docs {
			counted += documentBytes(d)
		}
		runtime.KeepAlive(docs)
		t.Logf("%s: %d documents hold %d KiB of heap, counted %d KiB", name, n, held>>10, counted>>10)
		if counted < held || counted > 3*held {
			t.Errorf("%s: counted %d bytes for %d held", name, counted, held)
		}
	}
}

// TestValidatedDocumentsTotalBound: past the bound of all tenants together
// the tenant holding the most gives up its oldest document; the others keep
// theirs.
func TestValidatedDocumentsTotalBound(t *testing.T) {
	t.Parallel()
	as := func() context.Context {
		return domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: uuid.New()})
	}
	c := newTenantCache(100, 1000, 2500, func(string, int) int { return 100 })
	small, big := as(), as()
	for i := range 5 {
		c.Add(small, fmt.Sprint("s", i), i)
	}
	for i := range 30 {
		c.Add(big, fmt.Sprint("b", i), i)
	}
	for i := range 5 {
		if _, ok := c.Get(small, fmt.Sprint("s", i)); !ok {
			t.Fatalf("the smaller tenant lost document %d", i)
		}
	}
	if _, ok := c.Get(big, "b29"); !ok || c.held > 2500 {
		t.Fatalf("held %d bytes, bound 2500", c.held)
	}
	if _, ok := c.Get(big, "b0"); ok {
		t.Fatal("the largest tenant kept its oldest document past the total bound")
	}
}
