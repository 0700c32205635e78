package graph_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
)

// BenchmarkSettlementSearch100 runs docs/api-contract.md §4.2's search for a page of 100
// statements with every field (driver, totals, line items, sub-lines)
// through the real HTTP server.
func BenchmarkSettlementSearch100(b *testing.B) {
	w := newWorld(b, 130)
	tok := w.token(b, "driver:read")
	// The cost budget is what a real client meets; the benchmark measures
	// the handler, so it runs without one.
	u := limitedServer(b, w.srv, app.GraphQLOptions{})
	body, _ := json.Marshal(map[string]any{"query": searchQuery, "variables": map[string]any{
		"f": dateRange("2025-03-01T00:00:00Z", "2025-12-31T00:00:00Z"), "page": 0, "size": 100}})
	b.ResetTimer()
	cpu0 := processCPU()
	defer func() { b.ReportMetric(float64(processCPU()-cpu0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op") }()
	for i := 0; i < b.N; i++ {
		req, _ := http.NewRequest(http.MethodPost, u+"/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+tok)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || n < 10000 {
			b.Fatalf("status %d, %d bytes", res.StatusCode, n)
		}
	}
}

// processCPU is the CPU time (user + system) this process has used: server
// and client of the benchmark, not PostgreSQL.
func processCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
