package operation

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
)

// The persisted queries one tenant can make the server hold, measured:
// registering three times what either bound admits — many small queries
// (the count bound) or queries of 4 KiB (the byte bound) — grows the heap
// by at most the byte bound and a quarter (the map, the list and the
// strings' headers are what the ~128 bytes of bookkeeping per query
// estimate). docs/security.md states the figures this logs. Not parallel:
// the heap is the process's (bytes measured after a GC, not time).
func TestPersistedQueriesMemoryPerTenant(t *testing.T) {
	heap := func() int64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	for _, size := range []int{64, 4 << 10} {
		c := NewPersistedQueries(0, 0)
		ctx := domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: uuid.New()})
		pad := strings.Repeat("x", size)
		before := heap()
		for i := range 3 * DefaultPersistedQueries {
			hash := fmt.Sprintf("%064x", i)
			c.Add(ctx, hash, fmt.Sprintf("{ __typename } #%d %s", i, pad))
		}
		grew := heap() - before
		runtime.KeepAlive(c)
		kept := 0
		for i := range 3 * DefaultPersistedQueries {
			if _, ok := c.Get(ctx, fmt.Sprintf("%064x", i)); ok {
				kept++
			}
		}
		t.Logf("queries of %d bytes: %d kept, heap +%d KiB (bound %d KiB)", size, kept, grew>>10, DefaultPersistedQueryBytes>>10)
		if kept > DefaultPersistedQueries || grew > DefaultPersistedQueryBytes*5/4 {
			t.Errorf("queries of %d bytes: %d kept, heap +%d KiB; want at most %d queries and %d KiB",
				size, kept, grew>>10, DefaultPersistedQueries, DefaultPersistedQueryBytes*5/4>>10)
		}
	}
}

// docs/security.md's table of the caches keyed by content states, for
// each cache this package makes, what it was measured to cost at its
// bounds and the test that measures it.
func TestSecurityDocStatesEachCacheMeasured(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../docs/security.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"operation.NewValidatedDocuments", "operation.NewPersistedQueries"} {
		row := ""
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "| ") && strings.Contains(line, "(`"+name+"`)") {
				row = line
			}
		}
		cells := strings.Split(strings.Trim(row, "| "), " | ")
		if len(cells) != 4 {
			t.Errorf("%s: no row of four cells in the cache table: %q", name, row)
			continue
		}
		if measured := cells[3]; !strings.Contains(measured, "MiB") || !strings.Contains(measured, "(`Test") {
			t.Errorf("%s: the measured cost at the bound names no measure and no test: %q", name, measured)
		}
	}
}
