// Command export benchmarks the streaming statement export against paging
// the search route: it seeds (once) a tenant at the given scale, starts a
// real HaulGraph server as a child process (so that its memory is measured
// alone), then, in A,B,A,B order, downloads a range as CSV and pages the
// search route 100 at a time over the same range. For each export it
// reports rows/s, time to first byte and the server's peak RSS above idle;
// exports of growing ranges show whether memory stays flat.
//
//	./scripts/with-pg.sh go run ./bench/export -scale 100
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/bench/benchkit"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/seed"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if os.Getenv("HG_BENCH_SERVE") == "1" {
		if err := serve(ctx); err != nil {
			fmt.Fprintln(os.Stderr, "bench server:", err)
			os.Exit(1)
		}
		return
	}
	scale := flag.Int("scale", 100, "seed scale of the benchmark tenant (1 = ~1,000 statements)")
	tenant := flag.String("tenant", "", "tenant slug (default bench-export-<scale>; seeded when missing)")
	flag.Parse()
	if *tenant == "" {
		*tenant = fmt.Sprintf("bench-export-%d", *scale)
	}
	if err := run(ctx, *tenant, *scale); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type ready struct{ URL, ClientID, Secret string }

func run(ctx context.Context, slug string, scale int) error {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		return errors.New("DATABASE_URL is not set: run ./scripts/with-pg.sh go run ./bench/export")
	}
	db, err := storage.Open(ctx, url)
	if err != nil {
		return err
	}
	if err := db.Migrate(ctx); err != nil {
		return err
	}
	t0 := time.Now()
	res, err := seed.Run(ctx, db, seed.Options{Tenant: slug, Scale: scale})
	switch {
	case errors.Is(err, seed.ErrTenantExists):
		fmt.Printf("tenant %s already seeded\n", slug)
	case err != nil:
		return err
	default:
		fmt.Printf("seeded %s at scale %d in %s: %d statements\n", slug, scale, time.Since(t0).Round(time.Second), res.Counts["settlement_statements"])
	}
	db.Close()

	child, info, err := startServer(ctx, slug)
	if err != nil {
		return err
	}
	defer func() { _ = child.Process.Signal(syscall.SIGTERM); _ = child.Wait() }()
	tok, err := benchkit.Token(ctx, info.URL, info.ClientID, info.Secret, app.DefaultAudience)
	if err != nil {
		return err
	}
	c := &client{base: info.URL, token: tok, pid: child.Process.Pid}
	idle, err := c.settle(ctx)
	if err != nil {
		return err
	}
	fmt.Printf("server idle RSS %.1f MB (each run's peak is measured above the RSS at its start, after a GC that returns freed memory to the OS)\n\n", mb(idle))

	// Memory against range length: a month, a quarter, the year.
	fmt.Println("CSV export by range length (peak RSS above idle):")
	for _, end := range []string{"2025-01-31", "2025-03-31", "2025-12-31"} {
		r, err := c.export(ctx, "2025-01-01", end)
		if err != nil {
			return err
		}
		fmt.Printf("  2025-01-01..%s  %s\n", end, r)
	}
	fmt.Println("\nFull year, A,B,A,B: CSV export vs search paged 100 at a time:")
	for range 2 {
		r, err := c.export(ctx, "2025-01-01", "2025-12-31")
		if err != nil {
			return err
		}
		fmt.Printf("  export  %s\n", r)
		p, err := c.page(ctx, "2025-01-01", "2025-12-31")
		if err != nil {
			return err
		}
		fmt.Printf("  search  %s\n", p)
	}
	return nil
}

type result struct {
	statements, lines int
	bytes             int64
	ttfb, total       time.Duration
	peak              uint64
	requests          int
}

func (r result) String() string {
	return fmt.Sprintf("%6d statements %7d line rows %6.1f MB in %6.2fs: %8.0f rows/s, first byte %5.0f ms, %4d requests, peak RSS +%.1f MB",
		r.statements, r.lines, float64(r.bytes)/1e6, r.total.Seconds(), float64(r.lines)/r.total.Seconds(),
		float64(r.ttfb.Microseconds())/1000, r.requests, mb(r.peak))
}

type client struct {
	base, token string
	pid         int
}

// export downloads one CSV export (identity encoding) and counts its rows.
func (c *client) export(ctx context.Context, start, end string) (result, error) {
	var r result
	idle, err := c.settle(ctx)
	if err != nil {
		return r, err
	}
	stop := sampleRSS(c.pid, idle, &r.peak)
	defer stop()
	t0 := time.Now()
	req, _ := http.NewRequestWithContext(ctx, "GET", c.base+"/api/p/v1/driver-settlement-statements/export?start="+start+"&end="+end+"&format=csv", nil)
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept-Encoding", "identity")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return r, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(res.Body)
		return r, fmt.Errorf("export: %d %s", res.StatusCode, b)
	}
	br := bufio.NewReaderSize(res.Body, 1<<16)
	if _, err := br.Peek(1); err != nil {
		return r, err
	}
	r.ttfb = time.Since(t0)
	last := ""
	for {
		line, err := br.ReadSlice('\n')
		r.bytes += int64(len(line))
		if len(line) > 0 {
			r.lines++
			// Rows of one statement are adjacent: count statement changes.
			if n, _, ok := strings.Cut(string(line), ","); ok && n != last {
				r.statements++
				last = n
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return r, err
		}
	}
	r.total = time.Since(t0)
	r.lines--      // the header
	r.statements-- // the header's "StatementNumber"
	r.requests = 1
	stop()
	return r, nil
}

// page reads the same range through the search route, 100 per request.
func (c *client) page(ctx context.Context, start, end string) (result, error) {
	var r result
	idle, err := c.settle(ctx)
	if err != nil {
		return r, err
	}
	stop := sampleRSS(c.pid, idle, &r.peak)
	defer stop()
	t0 := time.Now()
	for p := 0; ; p++ {
		body := fmt.Sprintf(`{"Page":%d,"PageSize":100,"StatementDateRange":{"Start":"%sT00:00:00Z","End":"%sT00:00:00Z"}}`, p, start, end)
		req, _ := http.NewRequestWithContext(ctx, "POST", c.base+"/api/p/v1/driver-settlement-statements/search", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return r, err
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return r, err
		}
		if res.StatusCode != http.StatusOK {
			return r, fmt.Errorf("search: %d %s", res.StatusCode, b)
		}
		if p == 0 {
			r.ttfb = time.Since(t0)
		}
		r.requests++
		r.bytes += int64(len(b))
		var pg struct {
			Total int
			Items []struct{ LineItems []json.RawMessage }
		}
		if err := json.NewDecoder(bytes.NewReader(b)).Decode(&pg); err != nil {
			return r, err
		}
		for _, it := range pg.Items {
			r.statements++
			r.lines += max(1, len(it.LineItems))
		}
		if r.statements >= pg.Total || len(pg.Items) == 0 {
			break
		}
	}
	r.total = time.Since(t0)
	stop()
	return r, nil
}

// settle asks the server for a GC that returns freed memory to the OS (so
// that one run's garbage is not the next run's peak) and answers its RSS.
func (c *client) settle(ctx context.Context) (uint64, error) {
	req, _ := http.NewRequestWithContext(ctx, "POST", c.base+"/bench/gc", nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	res.Body.Close()
	return rss(c.pid), nil
}

// sampleRSS records the child's peak RSS above idle every 5 ms until stop.
func sampleRSS(pid int, idle uint64, peak *uint64) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	var mu sync.Mutex
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			if v := rss(pid); v > idle {
				mu.Lock()
				*peak = max(*peak, v-idle)
				mu.Unlock()
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

// rss is a process's resident set size (VmRSS) in bytes.
func rss(pid int) uint64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

func mb(b uint64) float64 { return float64(b) / (1 << 20) }

// startServer runs this binary as the measured server and reads its ready line.
func startServer(ctx context.Context, slug string) (*exec.Cmd, ready, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, ready{}, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), "HG_BENCH_SERVE=1", "HG_BENCH_TENANT="+slug)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, ready{}, err
	}
	if err := cmd.Start(); err != nil {
		return nil, ready{}, err
	}
	var info ready
	if err := json.NewDecoder(out).Decode(&info); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, ready{}, fmt.Errorf("server did not start: %w", err)
	}
	return cmd, info, nil
}

// serve runs one real HaulGraph instance with a fresh driver:read client of
// the benchmark tenant.
func serve(ctx context.Context) error {
	cfg, err := app.FromEnv()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cfg.Addr = ln.Addr().String()
	cfg.PublicURL = "http://" + cfg.Addr
	// One client drives every request: the rate limit would measure itself.
	cfg.ClientRateLimit, cfg.TenantRateLimit = 1e6, 1e6
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer a.Close()
	var tenant uuid.UUID
	err = a.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		return tx.NewRaw("SELECT id FROM tenants WHERE slug = ?", os.Getenv("HG_BENCH_TENANT")).Scan(ctx, &tenant)
	})
	if err != nil {
		return fmt.Errorf("benchmark tenant: %w", err)
	}
	// Revoked sets do not count towards a tenant's 10 clients: revoke the
	// previous runs' clients first.
	_, _ = a.DB.Pool.Exec(ctx, "UPDATE api_clients SET revoked_at = now() WHERE tenant_id = $1 AND name = 'bench-export' AND revoked_at IS NULL", tenant)
	client, secret, err := a.Auth.CreateClient(ctx, tenant, auth.ClientSpec{Name: "bench-export", Scopes: []domain.Scope{domain.ScopeDriverRead}})
	if err != nil {
		return err
	}
	runDone := make(chan struct{})
	go func() { defer close(runDone); _ = a.Run(ctx) }()
	defer func() { <-runDone }()
	mux := http.NewServeMux()
	mux.Handle("/", a.Handler())
	mux.HandleFunc("POST /bench/gc", func(w http.ResponseWriter, _ *http.Request) { debug.FreeOSMemory() })
	srv := &http.Server{Handler: mux}
	closed := make(chan struct{})
	go func() { defer close(closed); <-ctx.Done(); _ = srv.Close() }()
	defer func() { <-closed }()
	line, _ := json.Marshal(ready{URL: cfg.PublicURL, ClientID: client.ClientID, Secret: secret})
	fmt.Fprintln(os.Stdout, string(line))
	if err := srv.Serve(ln); err != http.ErrServerClosed {
		return err
	}
	return nil
}
