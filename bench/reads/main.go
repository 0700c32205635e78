// Command reads benchmarks HaulGraph's hot reads against bare baselines in
// one run: it seeds (or reuses) a scale-100 tenant, serves the real
// HaulGraph instance and minimal pgx + encoding/json handlers of an invoice
// and of a statement page (the same SQL, no auth, no tenant context) in this
// process, and drives them in interleaved rounds (A, B, A, B, ...) from a
// child process, so that the CPU
// this process spends per request is the servers' alone. It reports req/s,
// p50, p99, server CPU per request, PostgreSQL round trips per request (on the
// wire, see storage.RoundTrips: those made for API callers on HaulGraph's
// pool, every one on the bare handler's) and the ratios.
//
//	./scripts/with-pg.sh go run ./bench/reads -pairs 3 -duration 5s
//
// With -pooler it compares HaulGraph through PgBouncer in transaction mode
// (DATABASE_URL and HAULGRAPH_POOLER as scripts/with-pgbouncer.sh sets
// them) with a second instance in this process straight to the server
// (HAULGRAPH_DIRECT_DATABASE_URL) instead, in the same interleaved rounds:
//
//	./scripts/with-pg.sh ./scripts/with-pgbouncer.sh go run ./bench/reads -pooler
//
// With -replica URL (a streaming standby of DATABASE_URL) it also measures
// a second instance reading from that replica against the first
// (docs/replicas.md).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/bench/benchkit"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
)

func main() {
	benchkit.AsDriver(driveEnv, drive)
	var o options
	flag.StringVar(&o.tenant, "tenant", "bench-reads", "slug of the benchmark tenant (seeded once, then reused)")
	flag.IntVar(&o.scale, "scale", 100, "seed scale of the tenant (100: 100k statements, 100k loads, 12k invoices)")
	flag.IntVar(&o.pairs, "pairs", 3, "interleaved rounds of each comparison's targets (at least 3)")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "length of one round (at most 1m)")
	flag.IntVar(&o.conns, "conns", 8, "client connections (at most 64)")
	flag.StringVar(&o.only, "only", "", "comma-separated comparisons to run: invoice, statements (default both), tracing (an instance exporting every span to a local OTLP sink vs one with tracing off; only when named)")
	flag.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of the servers over every round to this file")
	flag.BoolVar(&o.describeDirect, "describe-direct", false, "with -pooler: the direct instance sends statements as it would through the pooler (described once, unnamed), which separates the cost of that from PgBouncer's hop")
	flag.BoolVar(&o.pooler, "pooler", false, "compare through PgBouncer with direct (run under scripts/with-pgbouncer.sh); comparisons invoice, dashboard, statements")
	flag.StringVar(&o.replica, "replica", "", "URL of a streaming standby of DATABASE_URL: adds the comparisons replica-invoice and replica-statements (a second instance reading from it, against the first)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type options struct {
	tenant     string
	scale      int
	pairs      int
	duration   time.Duration
	conns      int
	only       string
	cpuprofile string
	pooler     bool
	// describeDirect: the direct instance of -pooler as if behind a pooler.
	describeDirect bool
	replica        string
}

func (o options) check() error {
	switch {
	case o.pairs < 3 || o.pairs > 20:
		return errors.New("-pairs must be between 3 and 20")
	case o.duration < time.Second || o.duration > time.Minute:
		return errors.New("-duration must be between 1s and 1m")
	case o.conns < 1 || o.conns > 64:
		return errors.New("-conns must be between 1 and 64")
	}
	return nil
}

func run(ctx context.Context, o options) error {
	if err := o.check(); err != nil {
		return err
	}
	cfg, err := benchkit.Config("reads")
	if err != nil {
		return err
	}
	// Every answer computed, as the bare handlers compute theirs: what the
	// response cache saves is bench/mixed's to measure.
	cfg.ResponseCacheBytes = 0
	hgLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cfg.Addr = hgLn.Addr().String()
	cfg.PublicURL = "http://" + cfg.Addr
	hgTrips := &storage.RoundTrips{}
	cfg.DBRoundTrips = hgTrips
	a, stopHG, err := benchkit.Serve(ctx, cfg, hgLn) // the bounds serve has: the per-address cap on hgLn
	if err != nil {
		return err
	}
	defer stopHG()

	t, err := benchkit.SeedTenant(ctx, a.DB, o.tenant, o.scale, 100000)
	if err != nil {
		return err
	}
	client, secret, err := a.Auth.CreateClient(ctx, t.ID, auth.ClientSpec{Name: "bench-reads",
		Scopes: []domain.Scope{domain.ScopeInvoiceRead, domain.ScopeDriverRead}})
	if err != nil {
		return fmt.Errorf("bench client: %w (a tenant holds at most 10 clients: revoke stale bench-reads clients)", err)
	}
	defer func() { _ = a.Auth.RevokeClient(context.WithoutCancel(ctx), t.ID, client.ClientID) }()

	bareTrips := &storage.RoundTrips{}
	bareDB := cfg.DatabaseURL
	if cfg.DirectDatabaseURL != "" {
		bareDB = cfg.DirectDatabaseURL // it prepares by name: never through a pooler
	}
	bare, err := newBare(ctx, bareDB, t.ID, bareTrips)
	if err != nil {
		return err
	}
	defer bare.pool.Close()
	bareLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	bareMux := http.NewServeMux()
	bareMux.Handle("GET /invoices", bare)
	bareMux.HandleFunc("GET /statements", bare.statements)
	bareSrv := &http.Server{Handler: bareMux, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- bareSrv.Serve(bareLn) }()
	defer func() { _ = bareSrv.Close(); <-served }()

	tok, err := benchkit.Token(ctx, cfg.PublicURL, client.ClientID, secret, cfg.Audience)
	if err != nil {
		return err
	}
	hg, bareURL := cfg.PublicURL, "http://"+bareLn.Addr().String()
	invoicePaths := func(base string) []string {
		out := make([]string, len(t.Invoices))
		for i, id := range t.Invoices {
			out[i] = base + id.String()
		}
		return out
	}
	from, to := t.From.String()+"T00:00:00Z", t.To.String()+"T00:00:00Z"
	targets := map[string]target{
		"REST invoice": {Method: "GET", URLs: invoicePaths(hg + "/api/p/v1/invoices?id="), Token: tok, trips: hgTrips.Callers},
		"bare invoice": {Method: "GET", URLs: invoicePaths(bareURL + "/invoices?id="), trips: bareTrips.Load},
		"GraphQL dashboard": {Method: "POST", URLs: []string{hg + "/graphql"}, Token: tok, trips: hgTrips.Callers,
			Body: benchkit.DashboardBody(from, to)},
		"REST statement search": {Method: "POST", URLs: []string{hg + "/api/p/v1/driver-settlement-statements/search"}, Token: tok,
			trips: hgTrips.Callers, Body: fmt.Sprintf(`{"Page":0,"PageSize":100,"StatementDateRange":{"Start":%q,"End":%q}}`, from, to)},
		"bare statement page": {Method: "GET", URLs: []string{fmt.Sprintf("%s/statements?from=%s&to=%s", bareURL, t.From, t.To)},
			trips: bareTrips.Load},
	}
	// The last target of each comparison is its baseline; the rounds take
	// the targets in turn (A, B, C, A, B, C, ...).
	comparisons := []comparison{
		{name: "invoice", targets: []string{"REST invoice", "bare invoice"}},
		{name: "statements", targets: []string{"GraphQL dashboard", "REST statement search", "bare statement page"}},
		{name: "tracing", targets: []string{"REST invoice traced", "REST invoice"}},
		{name: "tracing", targets: []string{"GraphQL dash traced", "GraphQL dashboard"}},
	}
	if o.pooler {
		direct, stop, err := directInstance(ctx, cfg, o.describeDirect)
		if err != nil {
			return err
		}
		defer stop()
		bouncerCPU, err := pgbouncerCPU(cfg.DatabaseURL)
		if err != nil {
			return err
		}
		comparisons = nil
		for name, c := range map[string]string{"REST invoice": "invoice", "GraphQL dashboard": "dashboard", "REST statement search": "statements"} {
			d := targets[name]
			d.URLs = slices.Clone(d.URLs)
			for i, u := range d.URLs {
				d.URLs[i] = direct.url + strings.TrimPrefix(u, hg)
			}
			d.trips = direct.trips.Callers
			via := targets[name]
			via.poolerCPU = bouncerCPU // every round: each pays for what PgBouncer does meanwhile
			d.poolerCPU = bouncerCPU
			targets[name+" direct"], targets[name+" PgBouncer"] = d, via
			comparisons = append(comparisons, comparison{name: c, targets: []string{name + " PgBouncer", name + " direct"}})
		}
		slices.SortFunc(comparisons, func(a, b comparison) int { return strings.Compare(a.name, b.name) })
	}
	if o.replica != "" {
		rep, stop, err := replicaInstance(ctx, cfg, o.replica)
		if err != nil {
			return err
		}
		defer stop()
		rt := targets["REST invoice"]
		rt.URLs, rt.trips = invoicePaths(rep.url+"/api/p/v1/invoices?id="), rep.trips.Callers
		targets["replica invoice"] = rt
		st := targets["REST statement search"]
		st.URLs, st.trips = []string{rep.url + "/api/p/v1/driver-settlement-statements/search"}, rep.trips.Callers
		targets["replica stmt search"] = st
		comparisons = append(comparisons,
			comparison{name: "replica-invoice", targets: []string{"replica invoice", "REST invoice"}},
			comparison{name: "replica-statements", targets: []string{"replica stmt search", "REST statement search"}})
	}
	want := []string{"invoice", "statements", "dashboard", "replica-invoice", "replica-statements"} // dashboard: with -pooler; replica-*: with -replica
	if o.only != "" {
		want = strings.Split(o.only, ",")
	}
	comparisons = slices.DeleteFunc(comparisons, func(c comparison) bool { return !slices.Contains(want, c.name) })
	if len(comparisons) == 0 {
		return fmt.Errorf("-only %q names no comparison (invoice, statements, tracing; with -pooler: invoice, statements, dashboard; with -replica: replica-invoice, replica-statements)", o.only)
	}
	if slices.Contains(want, "tracing") {
		traced, stop, err := tracedInstance(ctx, cfg)
		if err != nil {
			return err
		}
		defer stop()
		targets["REST invoice traced"] = target{Method: "GET", URLs: invoicePaths(traced + "/api/p/v1/invoices?id="), Token: tok, trips: hgTrips.Callers}
		targets["GraphQL dash traced"] = target{Method: "POST", URLs: []string{traced + "/graphql"}, Token: tok, trips: hgTrips.Callers,
			Body: benchkit.DashboardBody(from, to)}
	}
	// Each target answers once before it is measured (and must answer 200).
	for _, c := range comparisons {
		for _, name := range c.targets {
			if err := check(ctx, targets[name]); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	if o.cpuprofile != "" {
		f, err := os.Create(o.cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("tenant %s (scale %d): %d invoices; statements %s..%s; %d connections, %s rounds, %d pairs\n\n",
		o.tenant, o.scale, len(t.Invoices), t.From, t.To, o.conns, o.duration, o.pairs)
	fmt.Printf("%-31s %5s %9s %8s %8s %12s %10s %7s\n", "target", "round", "req/s", "p50 ms", "p99 ms", "CPU ms/req", "PG RT/req", "errors")
	results := map[string][]round{}
	for _, c := range comparisons {
		for i := range o.pairs {
			for _, name := range c.targets {
				r, err := measure(ctx, targets[name], o)
				if err != nil {
					return fmt.Errorf("%s: %w", name, err)
				}
				results[name] = append(results[name], r)
				fmt.Printf("%-31s %5d %9.1f %8.2f %8.2f %12.3f %10.2f %7d\n", name, i+1, r.rps, r.P50, r.P99, r.cpuPerReq, r.tripsPerReq, r.Errors)
			}
		}
	}
	fmt.Printf("\nmedians over %d rounds\n", o.pairs)
	fmt.Printf("%-31s %9s %8s %8s %12s %10s\n", "target", "req/s", "p50 ms", "p99 ms", "CPU ms/req", "PG RT/req")
	med := map[string]round{}
	for _, c := range comparisons {
		for _, name := range c.targets {
			m := median(results[name])
			med[name] = m
			fmt.Printf("%-31s %9.1f %8.2f %8.2f %12.3f %10.2f\n", name, m.rps, m.P50, m.P99, m.cpuPerReq, m.tripsPerReq)
		}
	}
	fmt.Println()
	for _, c := range comparisons {
		base := c.targets[len(c.targets)-1]
		b := med[base]
		for _, name := range c.targets[:len(c.targets)-1] {
			a := med[name]
			fmt.Printf("%s / %s: throughput %.2f×, CPU per request %.2f×\n", name, base, a.rps/b.rps, a.cpuPerReq/b.cpuPerReq)
			if o.pooler {
				fmt.Printf("  with PgBouncer's own CPU (%.3f ms/req; %.3f in the direct rounds): CPU per request %.2f×\n",
					a.poolerCPUPerReq, b.poolerCPUPerReq, (a.cpuPerReq+a.poolerCPUPerReq)/b.cpuPerReq)
			}
		}
	}
	return nil
}

// comparison is targets measured in turn; the last is the baseline the
// others are reported against.
type comparison struct {
	name    string
	targets []string
}

// median takes each column's median on its own.
func median(rs []round) round {
	col := func(get func(round) float64) float64 { return benchkit.Median(rs, get) }
	return round{rps: col(func(r round) float64 { return r.rps }),
		result:          result{P50: col(func(r round) float64 { return r.P50 }), P99: col(func(r round) float64 { return r.P99 })},
		cpuPerReq:       col(func(r round) float64 { return r.cpuPerReq }),
		tripsPerReq:     col(func(r round) float64 { return r.tripsPerReq }),
		poolerCPUPerReq: col(func(r round) float64 { return r.poolerCPUPerReq })}
}

// bareHandler is the ceiling: pgx pool + encoding/json, the invoice read's
// own SQL sent the same way (one batch), no auth, no rate limit, no tenant
// context, no domain layer.
type bareHandler struct {
	pool   *pgxpool.Pool
	tenant uuid.UUID
}

func newBare(ctx context.Context, url string, tenant uuid.UUID, trips *storage.RoundTrips) (*bareHandler, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	cfg.MaxConns = 20 // as storage.Open
	storage.CountRoundTrips(trips)(cfg)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &bareHandler{pool: pool, tenant: tenant}, nil
}

// directInstance starts the second instance of -pooler on cfg's direct URL
// (no pooler); stop ends it.
func directInstance(ctx context.Context, cfg app.Config, describe bool) (instance, func(), error) {
	if cfg.Pooler == storage.PoolerNone {
		return instance{}, nil, errors.New("-pooler: HAULGRAPH_POOLER is not set: run under ./scripts/with-pgbouncer.sh")
	}
	cfg.DatabaseURL, cfg.DirectDatabaseURL, cfg.Pooler = cfg.DirectDatabaseURL, "", storage.PoolerNone
	if describe {
		cfg.DirectDatabaseURL, cfg.Pooler = cfg.DatabaseURL, storage.PoolerPgBouncer // both pools direct
	}
	return secondInstance(ctx, cfg)
}

// pgbouncerCPU reads the CPU time of the PgBouncer that url leads to, from
// the pidfile with-pgbouncer.sh keeps beside its socket (Linux /proc).
func pgbouncerCPU(url string) (func() time.Duration, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(cfg.ConnConfig.Host, "pgbouncer.pid"))
	if err != nil {
		return nil, fmt.Errorf("-pooler: PgBouncer's pid: %w", err)
	}
	stat := filepath.Join("/proc", strings.TrimSpace(string(b)), "stat")
	return func() time.Duration {
		b, err := os.ReadFile(stat)
		if err != nil {
			return 0
		}
		_, after, _ := strings.Cut(string(b), ") ") // the command may hold spaces
		f := strings.Fields(after)
		if len(f) < 13 {
			return 0
		}
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		return time.Duration(utime+stime) * time.Second / 100 // USER_HZ
	}, nil
}
