package apptest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/operation"
)

// The cache of validated documents is bounded by what its documents cost
// in memory, not by their text: distinct documents of one list of 4,990
// values (10 KB of text, some 1 MB parsed) from two tenants grow the heap
// by at most the two tenants' bounds, with a margin for the server's own
// garbage (measured after a GC: bytes, not time). Not parallel: the heap
// is the process's.
func TestValidatedDocumentsBoundedByMemory(t *testing.T) {
	srv := apptest.Start(t, apptest.Options{})
	const tenants, documents = 2, 60
	tokens := make([]string, tenants)
	for i := range tokens {
		tokens[i] = srv.Token(t, apptest.NewTenant(t, srv, fmt.Sprintf("cache%d", i)), domain.ScopeCustomerRead)
	}
	ids := strings.TrimSuffix(strings.Repeat("1,", 4990), ",")
	post := func(token, query string) {
		t.Helper()
		b, _ := json.Marshal(map[string]any{"query": query})
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/graphql", strings.NewReader(string(b)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var out gqlAnswer
		_ = json.NewDecoder(res.Body).Decode(&out)
		res.Body.Close()
		// Validated (and so cached): the resolver's refusal of the ids
		// as BAD_USER_INPUT comes after.
		if res.StatusCode != http.StatusOK || (len(out.Errors) > 0 && out.Errors[0].Extensions["code"] != "BAD_USER_INPUT") {
			t.Fatalf("status %d: %.300v", res.StatusCode, out.Errors)
		}
	}
	// Warm up: the server's own first-use allocations are not the cache's.
	for _, tok := range tokens {
		post(tok, `{ locations(first: 1) { total } }`)
	}
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	before := heap()
	for n := range documents {
		for _, tok := range tokens {
			post(tok, fmt.Sprintf(`{ locations(filter: {locationIds: [%s]}, first: 1) { total } } #%d`, ids, n))
		}
	}
	after := heap()
	grew := int64(after) - int64(before)
	bound := int64(tenants*operation.ValidatedDocumentBytes) + 24<<20
	t.Logf("%d tenants × %d documents: heap %d → %d MiB (+%d MiB), bound %d MiB",
		tenants, documents, before>>20, after>>20, grew>>20, bound>>20)
	if grew > bound {
		t.Errorf("the heap grew %d MiB, bound %d MiB", grew>>20, bound>>20)
	}
}
