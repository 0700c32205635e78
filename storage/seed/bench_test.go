package seed_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// BenchmarkSeed seeds one tenant per iteration. The scale is 1 unless
// HAULGRAPH_SEED_BENCH_SCALE says otherwise, e.g.
//
//	HAULGRAPH_SEED_BENCH_SCALE=100 ./scripts/with-pg.sh go test -run '^$' -bench Seed -benchtime 1x ./storage/seed/
func BenchmarkSeed(b *testing.B) {
	scale := 1
	if v := os.Getenv("HAULGRAPH_SEED_BENCH_SCALE"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("HAULGRAPH_SEED_BENCH_SCALE: %v", err)
		}
		scale = n
	}
	db := dbtest.New(b)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		res, err := seed.Run(context.Background(), db, seed.Options{Tenant: fmt.Sprintf("bench-%d", i), Scale: scale})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(res.Counts["settlement_statements"]), "statements/op")
	}
}
