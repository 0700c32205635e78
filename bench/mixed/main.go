// Command mixed benchmarks the response cache under a mixed workload: K
// dashboard clients of one tenant sending the GraphQL dashboard query (a
// month of statements with totals, line items and sub-lines), REST clients
// polling the statement search and invoices, and W writes per second
// (updateLoad through the API, statement updates through plain SQL, as the
// rest of the TMS writes them), against an instance with the cache and one
// without, in interleaved rounds (on, off, on, off, ...), rate limits and
// the cost budget lifted as bench/reads lifts them. Then the dashboard alone
// without writes, every answer a hit against every answer a miss, for the
// server CPU of each. It reports requests per second, p50/p99, the server
// CPU per request and the hit ratio.
//
//	./scripts/with-pg.sh go run ./bench/mixed [-scale 10] [-pairs 3] [-duration 5s] [-dashboards 8] [-pollers 4] [-writes 5]
//
// The clients run in a child process, so that the CPU this process spends
// is the servers' (and the writer's, a few statements a second).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/bench/benchkit"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/respcache"
)

const driveEnv = "HG_BENCH_MIXED_DRIVE"

type options struct {
	tenant                      string
	scale, pairs                int
	duration                    time.Duration
	dashboards, pollers, writes int
}

func main() {
	benchkit.AsDriver(driveEnv, drive)
	var o options
	flag.StringVar(&o.tenant, "tenant", "bench-mixed", "slug of the benchmark tenant (seeded once, then reused)")
	flag.IntVar(&o.scale, "scale", 10, "seed scale of the tenant")
	flag.IntVar(&o.pairs, "pairs", 3, "interleaved rounds of each instance (1 to 20)")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "length of one round (1s to 1m)")
	flag.IntVar(&o.dashboards, "dashboards", 8, "dashboard clients (1 to 64)")
	flag.IntVar(&o.pollers, "pollers", 4, "REST clients for each of statement search and invoices (1 to 64)")
	flag.IntVar(&o.writes, "writes", 5, "writes per second, half load updates through the API, half statement updates through SQL (0 to 100)")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func (o options) check() error {
	switch {
	case o.pairs < 1 || o.pairs > 20, o.duration < time.Second || o.duration > time.Minute,
		o.dashboards < 1 || o.dashboards > 64, o.pollers < 1 || o.pollers > 64, o.writes < 0 || o.writes > 100:
		return errors.New("an option is out of its bounds (see -help)")
	}
	return nil
}

// instance is one HaulGraph of the benchmark, served from this process.
type instance struct {
	app *app.App
	url string
}

func start(ctx context.Context, cfg app.Config, cacheBytes int64) (instance, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return instance{}, nil, err
	}
	cfg.AdminAddr, cfg.ResponseCacheBytes = "", cacheBytes
	a, stop, err := benchkit.Serve(ctx, cfg, ln)
	if err != nil {
		return instance{}, nil, err
	}
	return instance{app: a, url: "http://" + ln.Addr().String()}, stop, nil
}

func run(ctx context.Context, o options) error {
	if err := o.check(); err != nil {
		return err
	}
	cfg, err := benchkit.Config("mixed")
	if err != nil {
		return err
	}
	// One public URL for both, so that one token is good on either.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cfg.PublicURL = "http://" + probe.Addr().String()
	_ = probe.Close()
	on, stopOn, err := start(ctx, cfg, respcache.DefaultBytes)
	if err != nil {
		return err
	}
	defer stopOn()
	off, stopOff, err := start(ctx, cfg, 0)
	if err != nil {
		return err
	}
	defer stopOff()

	t, err := tenant(ctx, on.app, o)
	if err != nil {
		return err
	}
	client, secret, err := on.app.Auth.CreateClient(ctx, t.ID, auth.ClientSpec{Name: "bench-mixed",
		Scopes: []domain.Scope{domain.ScopeInvoiceRead, domain.ScopeDriverRead, domain.ScopeLoadRead, domain.ScopeLoadUpdate}})
	if err != nil {
		return fmt.Errorf("bench client: %w (a tenant holds at most 10 clients: revoke stale bench-mixed clients)", err)
	}
	defer func() { _ = on.app.Auth.RevokeClient(context.WithoutCancel(ctx), t.ID, client.ClientID) }()
	token, err := benchkit.Token(ctx, on.url, client.ClientID, secret, cfg.Audience)
	if err != nil {
		return err
	}
	from, to := t.From.String()+"T00:00:00Z", t.To.String()+"T00:00:00Z"
	mix := func(in instance, dashboardsOnly bool) []target {
		ts := []target{{Name: "dashboard", Method: "POST", URLs: []string{in.url + "/graphql"}, Body: benchkit.DashboardBody(from, to), Conns: o.dashboards}}
		if dashboardsOnly {
			return ts
		}
		invoices := make([]string, len(t.Invoices))
		for i, id := range t.Invoices {
			invoices[i] = in.url + "/api/p/v1/invoices?id=" + id.String()
		}
		return append(ts,
			target{Name: "statement search", Method: "POST", URLs: []string{in.url + "/api/p/v1/driver-settlement-statements/search"},
				Body: fmt.Sprintf(`{"Page":0,"PageSize":100,"StatementDateRange":{"Start":%q,"End":%q}}`, from, to), Conns: o.pollers},
			target{Name: "invoice", Method: "GET", URLs: invoices, Conns: o.pollers})
	}
	for i := range mix(on, false) {
		for _, in := range []instance{on, off} {
			tg := mix(in, false)[i]
			tg.Token = token
			if err := send(ctx, http.DefaultClient, tg, tg.URLs[0]); err != nil {
				return fmt.Errorf("%s: %w", tg.Name, err)
			}
		}
	}
	w := &writer{pool: on.app.DB.Pool, tenant: t.ID, loads: t.loads, statements: t.statements, token: token}

	fmt.Printf("tenant %s (scale %d): %d dashboard clients, %d statement-search and %d invoice clients, %d writes/s; %s rounds, %d pairs\n\n",
		o.tenant, o.scale, o.dashboards, o.pollers, o.pollers, o.writes, o.duration, o.pairs)
	fmt.Printf("%-6s %-17s %5s %9s %8s %8s %11s %6s %7s\n", "cache", "requests", "round", "req/s", "p50 ms", "p99 ms", "CPU ms/req", "hits", "errors")
	type key struct{ cache, name string }
	results := map[key][]res{}
	phases := []struct {
		name           string
		writes         int
		dashboardsOnly bool
	}{{"mixed", o.writes, false}, {"dashboard alone, no writes", 0, true}}
	for _, ph := range phases {
		fmt.Printf("-- %s\n", ph.name)
		for i := range o.pairs {
			for _, c := range []struct {
				name string
				in   instance
			}{{"on", on}, {"off", off}} {
				ts := mix(c.in, ph.dashboardsOnly)
				for j := range ts {
					ts[j].Token = token
				}
				rs, err := measure(ctx, ts, o.duration, c.in, w, ph.writes)
				if err != nil {
					return err
				}
				for _, r := range rs {
					k := key{c.name, ph.name + ": " + r.Name}
					results[k] = append(results[k], r)
					fmt.Printf("%-6s %-17s %5d %9.1f %8.2f %8.2f %11.3f %5.0f%% %7d\n", c.name, r.Name, i+1, r.rps, r.P50, r.P99, r.cpuPerReq, 100*r.hitRatio, r.Errors)
				}
			}
		}
	}
	fmt.Printf("\nmedians over %d rounds (CPU per request: the server's, all kinds of request of the round together)\n", o.pairs)
	names := []string{}
	for k := range results {
		if k.cache == "on" {
			names = append(names, k.name)
		}
	}
	sort.Strings(names)
	for _, n := range names {
		a, b := median(results[key{"on", n}]), median(results[key{"off", n}])
		fmt.Printf("%-45s on %8.1f req/s (p50 %.2f, p99 %.2f ms), off %8.1f req/s (p50 %.2f, p99 %.2f ms): %.2f×; CPU/req %.3f vs %.3f ms: %.2f×\n",
			n, a.rps, a.P50, a.P99, b.rps, b.P50, b.P99, a.rps/b.rps, a.cpuPerReq, b.cpuPerReq, a.cpuPerReq/b.cpuPerReq)
	}
	return nil
}

type benchTenant struct {
	benchkit.Tenant
	loads      []string
	statements []int32
}

// tenant seeds the benchmark tenant unless it exists, then reads what the
// clients and the writer pick from.
func tenant(ctx context.Context, a *app.App, o options) (benchTenant, error) {
	var t benchTenant
	var err error
	if t.Tenant, err = benchkit.SeedTenant(ctx, a.DB, o.tenant, o.scale, 1000); err != nil {
		return t, err
	}
	pool := a.DB.Pool
	for _, q := range []struct {
		sql  string
		into func(pgxRows) error
	}{
		{"SELECT load_number FROM loads WHERE tenant_id = $1 ORDER BY id LIMIT 1000", func(r pgxRows) error {
			var n string
			err := r.Scan(&n)
			t.loads = append(t.loads, n)
			return err
		}},
		{"SELECT number FROM settlement_statements WHERE tenant_id = $1 AND statement_date BETWEEN $2 AND $3 ORDER BY number LIMIT 1000", func(r pgxRows) error {
			var n int32
			err := r.Scan(&n)
			t.statements = append(t.statements, n)
			return err
		}},
	} {
		args := []any{t.ID}
		if strings.Contains(q.sql, "$2") {
			args = append(args, t.From.Time, t.To.Time)
		}
		rows, err := pool.Query(ctx, q.sql, args...)
		if err != nil {
			return t, err
		}
		for rows.Next() {
			if err := q.into(rows); err != nil {
				rows.Close()
				return t, err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return t, err
		}
	}
	if len(t.loads) == 0 || len(t.statements) == 0 {
		return t, fmt.Errorf("tenant %s lacks loads or statements", o.tenant)
	}
	return t, nil
}

type pgxRows interface{ Scan(...any) error }

// writer makes the round's writes: load updates through the API of the
// instance under test, statement updates through SQL.
type writer struct {
	pool       *pgxpool.Pool
	tenant     uuid.UUID
	loads      []string
	statements []int32
	token      string
}

// run writes perSecond times a second until ctx ends, and counts failures.
func (w *writer) run(ctx context.Context, in instance, perSecond int) (failed int) {
	if perSecond == 0 {
		return 0
	}
	tick := time.NewTicker(time.Second / time.Duration(perSecond))
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-ctx.Done():
			return failed
		case <-tick.C:
		}
		var err error
		if i%2 == 0 {
			n := w.loads[rand.IntN(len(w.loads))]
			body, _ := json.Marshal(map[string]any{"query": `mutation($n:String!,$po:String!){updateLoad(loadNumber:$n,input:{poNumber:$po}){id}}`,
				"variables": map[string]any{"n": n, "po": fmt.Sprintf("PO-MIX-%d", rand.IntN(1e9))}})
			err = send(ctx, http.DefaultClient, target{Method: "POST", Token: w.token, Body: string(body)}, in.url+"/graphql")
		} else {
			_, err = w.pool.Exec(ctx, "UPDATE settlement_statements SET pay_period_title = $3 WHERE tenant_id = $1 AND number = $2",
				w.tenant, w.statements[rand.IntN(len(w.statements))], fmt.Sprintf("week %d", rand.IntN(1e9)))
		}
		if err != nil && ctx.Err() == nil {
			failed++
		}
	}
}

// target is one kind of request of a round; URLs are picked at random.
type target struct {
	Name   string
	Method string
	URLs   []string
	Body   string
	Token  string
	Conns  int
}

// job is what the driver process is told.
type job struct {
	Targets []target
	For     time.Duration
}

// result is one target's outcome in a round.
type result struct {
	Name       string
	Requests   int
	Errors     int
	FirstError string
	Elapsed    time.Duration
	P50, P99   float64 // milliseconds
}

type res struct {
	result
	rps, cpuPerReq, hitRatio float64
}

// measure runs one round of targets against in from a driver process while
// the writer writes, and reads this process's CPU time around it.
func measure(ctx context.Context, ts []target, d time.Duration, in instance, w *writer, writes int) ([]res, error) {
	cmd, out, err := benchkit.StartDriver(ctx, driveEnv, job{Targets: ts, For: d})
	if err != nil {
		return nil, err
	}
	wctx, stopWriter := context.WithCancel(ctx)
	var failed int
	var wg sync.WaitGroup
	wg.Go(func() { failed = w.run(wctx, in, writes) })
	cpu0, stats0 := benchkit.CPUTime(), in.app.Cache.Stats()
	err = cmd.Wait()
	cpu, stats := benchkit.CPUTime()-cpu0, in.app.Cache.Stats()
	stopWriter()
	wg.Wait()
	if err != nil {
		return nil, err
	}
	if failed > 0 {
		fmt.Fprintf(os.Stderr, "  %d writes failed\n", failed)
	}
	var rs []result
	if err := json.Unmarshal(out.Bytes(), &rs); err != nil {
		return nil, fmt.Errorf("driver output %q: %w", out.String(), err)
	}
	total := 0
	for _, r := range rs {
		total += r.Requests + r.Errors
	}
	hits, lookups := float64(stats.Hits-stats0.Hits), float64(stats.Hits-stats0.Hits+stats.Misses-stats0.Misses)
	out2 := make([]res, len(rs))
	for i, r := range rs {
		if r.FirstError != "" {
			fmt.Fprintf(os.Stderr, "  %s: %d errors, first: %s\n", r.Name, r.Errors, r.FirstError)
		}
		out2[i] = res{result: r, rps: float64(r.Requests) / r.Elapsed.Seconds(), cpuPerReq: float64(cpu.Microseconds()) / 1000 / float64(max(total, 1))}
		if lookups > 0 {
			out2[i].hitRatio = hits / lookups
		}
	}
	return out2, nil
}

// drive is the driver process: each target's clients send its requests back
// to back for the job's length, all targets at once.
func drive(in io.Reader, out io.Writer) error {
	var j job
	if err := json.NewDecoder(in).Decode(&j); err != nil {
		return err
	}
	conns := 0
	for _, t := range j.Targets {
		conns += t.Conns
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns, DisableCompression: true}}
	ctx := context.Background()
	start := time.Now()
	deadline := start.Add(j.For)
	results := make([]result, len(j.Targets))
	var wg sync.WaitGroup
	for i, t := range j.Targets {
		var mu sync.Mutex
		var latencies []float64
		var twg sync.WaitGroup
		for range t.Conns {
			twg.Go(func() {
				var mine []float64
				for time.Now().Before(deadline) {
					t0 := time.Now()
					if err := send(ctx, client, t, t.URLs[rand.IntN(len(t.URLs))]); err != nil {
						mu.Lock()
						results[i].Errors++
						if results[i].FirstError == "" {
							results[i].FirstError = err.Error()
						}
						mu.Unlock()
						continue
					}
					mine = append(mine, float64(time.Since(t0).Microseconds())/1000)
				}
				mu.Lock()
				latencies = append(latencies, mine...)
				mu.Unlock()
			})
		}
		wg.Go(func() {
			twg.Wait()
			r := &results[i]
			r.Name, r.Elapsed, r.Requests = t.Name, time.Since(start), len(latencies)
			if len(latencies) > 0 {
				slices.Sort(latencies)
				r.P50, r.P99 = benchkit.Percentile(latencies, 50), benchkit.Percentile(latencies, 99)
			}
		})
	}
	wg.Wait()
	return json.NewEncoder(out).Encode(results)
}

// send makes one request of t and wants a 200 without GraphQL errors.
func send(ctx context.Context, c *http.Client, t target, url string) error {
	return benchkit.Send(ctx, c, t.Method, url, t.Body, t.Token)
}

// median takes each column's median on its own.
func median(rs []res) res {
	var m res
	m.rps = benchkit.Median(rs, func(r res) float64 { return r.rps })
	m.cpuPerReq = benchkit.Median(rs, func(r res) float64 { return r.cpuPerReq })
	m.P50 = benchkit.Median(rs, func(r res) float64 { return r.P50 })
	m.P99 = benchkit.Median(rs, func(r res) float64 { return r.P99 })
	return m
}
