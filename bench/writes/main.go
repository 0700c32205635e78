// Command writes benchmarks the load write path: createLoad followed by
// changeLoadStatus, from concurrent writers, through the domain service and
// storage (each write is one transaction with its outbox events). It reports
// writes per second, the p50/p99 latency of one write, the round trips to
// PostgreSQL per write and, when /proc/stat is readable, the CPU time the
// whole machine spent per write (client and PostgreSQL together: run it where
// the database runs; on a shared, noisy machine it varies less than writes/s).
//
// It compares the outbox ordering of 0010_outbox_horizon.sql ("horizon":
// writers commit concurrently) with the one it replaced ("lock": 0004's
// advisory-lock trigger, reinstalled in the benchmark's own database), in
// alternating rounds A,B,A,B:
//
//	./scripts/with-pg.sh go run ./bench/writes [-writers 16] [-duration 5s] [-rounds 2]
//
// With -compare versions it measures instead what the response cache's
// version triggers (0023_response_versions.sql) cost writers: rounds with
// them disabled ("off") and enabled ("on"), the outbox as migrated.
//
// It works in a temporary database on DATABASE_URL's server, dropped at the end.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/bench/benchkit"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/storage"
)

// lockTrigger is 0004_events.sql's serialisation, for the "lock" rounds.
const lockTrigger = `CREATE OR REPLACE FUNCTION events_serialize() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(7340218);
  RETURN NULL;
END $$;
CREATE TRIGGER events_serialize BEFORE INSERT ON events FOR EACH STATEMENT EXECUTE FUNCTION events_serialize();`

func main() {
	writers := flag.Int("writers", 16, "concurrent writers")
	duration := flag.Duration("duration", 5*time.Second, "length of one round")
	rounds := flag.Int("rounds", 2, "A,B pairs")
	compare := flag.String("compare", "outbox", "what the A,B rounds compare: outbox (lock, horizon) or versions (the version triggers off, on)")
	flag.Parse()
	if *compare != "outbox" && *compare != "versions" {
		fmt.Fprintln(os.Stderr, "bench: -compare is outbox or versions")
		os.Exit(2)
	}
	if err := run(*writers, *duration, *rounds, *compare); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(writers int, duration time.Duration, rounds int, compare string) error {
	ctx := context.Background()
	dbURL, drop, err := benchkit.TempDatabase(ctx)
	if err != nil {
		return err
	}
	defer drop()
	rt := &storage.RoundTrips{}
	db, err := storage.Open(ctx, dbURL, storage.CountRoundTrips(rt))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	tenant, sub := uuid.New(), uuid.New()
	if _, err := db.Pool.Exec(ctx, "INSERT INTO tenants (id, slug, name) VALUES ($1, 'bench', 'Bench')", tenant); err != nil {
		return err
	}
	if _, err := db.Pool.Exec(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES ($1, $2, 'main')", sub, tenant); err != nil {
		return err
	}
	caller := domain.WithPrincipal(ctx, &domain.Principal{TenantID: tenant, ClientID: "bench",
		Scopes: []domain.Scope{domain.ScopeLoadCreate, domain.ScopeLoadUpdate}})
	svc := &loads.Writes{Store: &storage.LoadWrites{DB: db}}

	fmt.Printf("%d writers, %s per round; one write = createLoad or changeLoadStatus (a transaction with its outbox events)\n", writers, duration)
	modes := []string{"lock", "horizon"}
	if compare == "versions" {
		modes = []string{"off", "on"}
	}
	fmt.Printf("%-8s %10s %9s %9s %10s %10s\n", compare, "writes/s", "p50", "p99", "RT/write", "CPU/write")
	round := 0
	for range rounds {
		for _, mode := range modes {
			if _, err := db.Pool.Exec(ctx, setup(mode)); err != nil {
				return err
			}
			round++
			rt0, cpu0 := rt.Load(), machineCPU()
			m, err := measure(caller, svc, sub, writers, duration, round)
			if err != nil {
				return err
			}
			cpu := "-"
			if cpu0 > 0 {
				cpu = ((machineCPU() - cpu0) / time.Duration(m.writes)).Round(time.Microsecond).String()
			}
			fmt.Printf("%-8s %10.0f %9s %9s %10.1f %10s\n", mode, m.rate, m.p50.Round(10*time.Microsecond),
				m.p99.Round(10*time.Microsecond), float64(rt.Load()-rt0)/float64(m.writes), cpu)
		}
	}
	return nil
}

// setup is the statement that puts the database in a round's mode.
func setup(mode string) string {
	switch mode {
	case "lock":
		return lockTrigger
	case "horizon":
		return "DROP TRIGGER IF EXISTS events_serialize ON events"
	}
	action := map[string]string{"off": "DISABLE", "on": "ENABLE"}[mode]
	return `DO $$
DECLARE t record;
BEGIN
  FOR t IN SELECT tgrelid::regclass AS tbl, tgname FROM pg_trigger WHERE tgname LIKE 'response_versions_%' LOOP
    EXECUTE format('ALTER TABLE %s ` + action + ` TRIGGER %I', t.tbl, t.tgname);
  END LOOP;
END $$`
}

type result struct {
	writes   int
	rate     float64 // writes/s
	p50, p99 time.Duration
}

// measure runs writers for d, each creating a load and moving it to Covered,
// over and over.
func measure(caller context.Context, svc *loads.Writes, sub uuid.UUID, writers int, d time.Duration, round int) (result, error) {
	rate := loads.MoneyInput{Amount: decimal.RequireFromString("1250.00")}
	lat := make([][]time.Duration, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	start := time.Now()
	end := start.Add(d)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; time.Now().Before(end); i++ {
				n := fmt.Sprintf("B%d-%d-%d", round, w, i)
				t0 := time.Now()
				_, err := svc.CreateLoad(caller, loads.Input{LoadNumber: n, SubsidiaryID: sub.String(), Rate: &rate,
					Stops: []loads.StopInput{{Type: "Pickup", Name: "Mill"}, {Type: "Delivery", Name: "Dock"}}})
				t1 := time.Now()
				if err == nil {
					_, err = svc.ChangeLoadStatus(caller, n, "Covered")
				}
				if err != nil {
					errs[w] = err
					return
				}
				lat[w] = append(lat[w], t1.Sub(t0), time.Since(t1))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	var all []time.Duration
	for w := range writers {
		if errs[w] != nil {
			return result{}, errs[w]
		}
		all = append(all, lat[w]...)
	}
	if len(all) == 0 {
		return result{}, fmt.Errorf("no write finished")
	}
	slices.Sort(all)
	return result{writes: len(all), rate: float64(len(all)) / elapsed.Seconds(), p50: benchkit.Percentile(all, 50), p99: benchkit.Percentile(all, 99)}, nil
}

// machineCPU is the CPU time every core of this machine has spent so far
// outside idle and iowait (/proc/stat; USER_HZ is 100 on Linux), or 0 where
// that file is not readable.
func machineCPU() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := strings.Cut(string(b), "\n")
	fields := strings.Fields(line) // cpu user nice system idle iowait irq softirq steal ...
	var busy int64
	for i, f := range fields {
		if i == 0 || i == 4 || i == 5 {
			continue
		}
		n, _ := strconv.ParseInt(f, 10, 64)
		busy += n
	}
	return time.Duration(busy) * 10 * time.Millisecond
}
