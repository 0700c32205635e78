package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/storage"
)

func (h *bareHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	id, err := uuid.Parse(r.URL.Query().Get("id"))
	if err != nil {
		http.Error(w, "id must be a UUID", http.StatusBadRequest)
		return
	}
	var b pgx.Batch
	read := storage.QueueInvoiceRead(&b, storage.InvoiceByID, h.tenant, id)
	if err := h.pool.SendBatch(r.Context(), &b).Close(); err != nil {
		http.Error(w, "database error", http.StatusInternalServerError)
		return
	}
	if !read.Found {
		http.NotFound(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(read.Invoice)
}

// dashboardBody is the GraphQL dashboard query over one month.
func dashboardBody(from, to string) string {
	q := `query($from: DateTime!, $to: DateTime!) { settlementStatements(filter: {statementDateRange: {start: $from, end: $to}}, page: 0, pageSize: 100) {
  items { number status statementDate driver { name type }
    totals { grossIncome { amount currency } netIncome { amount currency } deductions { amount } loadedMiles }
    lineItems { category title amount { amount currency } subLines { description quantity rate amount { amount currency } } } } } }`
	b, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]string{"from": from, "to": to}})
	return string(b)
}

// target is one kind of request; URLs are picked at random per request.
type target struct {
	Method string
	URLs   []string
	Body   string
	Token  string
	Conns  int
	For    time.Duration

	// trips counts the PostgreSQL round trips this target's requests cause.
	trips func() int64
	// poolerCPU, when set, is PgBouncer's CPU time so far.
	poolerCPU func() time.Duration
}

// result is what the driver process reports for one round.
type result struct {
	Requests   int
	Errors     int
	FirstError string
	Elapsed    time.Duration
	P50, P99   float64 // milliseconds
}

// round is a result with the server side's measures.
type round struct {
	result
	rps, cpuPerReq, tripsPerReq float64
	poolerCPUPerReq             float64 // PgBouncer's CPU (-pooler), ms
}

// driveEnv makes the binary the load driver: it reads a target on stdin and
// writes a result on stdout.
const driveEnv = "HG_BENCH_READS_DRIVE"

// check sends one request of t from this process and wants a 200.
func check(ctx context.Context, t target) error {
	return send(ctx, http.DefaultClient, t, t.URLs[0])
}

// send makes one request and wants a 200 without GraphQL errors.
func send(ctx context.Context, c *http.Client, t target, url string) error {
	var body io.Reader
	if t.Body != "" {
		body = strings.NewReader(t.Body)
	}
	req, err := http.NewRequestWithContext(ctx, t.Method, url, body)
	if err != nil {
		return err
	}
	if t.Body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if t.Token != "" {
		req.Header.Set("Authorization", "Bearer "+t.Token)
	}
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("status %d: %.200s", res.StatusCode, b)
	}
	if bytes.Contains(b, []byte(`"errors":[`)) {
		return fmt.Errorf("GraphQL errors: %.300s", b)
	}
	return nil
}

// measure runs one round of t in a driver process and reads this process's
// CPU time and t's round trips around it.
func measure(ctx context.Context, t target, o options) (round, error) {
	t.Conns, t.For = o.conns, o.duration
	exe, err := os.Executable()
	if err != nil {
		return round{}, err
	}
	in, _ := json.Marshal(t)
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), driveEnv+"=1")
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Start(); err != nil {
		return round{}, err
	}
	// The driver starts its clock when it has read its target; the child's
	// start-up costs this process nothing.
	cpu0, trips0, pooler0 := cpuTime(), t.trips(), poolerCPU(t)
	if err := cmd.Wait(); err != nil {
		return round{}, err
	}
	cpu, trips, pooler := cpuTime()-cpu0, t.trips()-trips0, poolerCPU(t)-pooler0
	var r round
	if err := json.Unmarshal(out.Bytes(), &r.result); err != nil {
		return round{}, fmt.Errorf("driver output %q: %w", out.String(), err)
	}
	if r.Requests == 0 {
		return round{}, fmt.Errorf("no request completed (%s)", r.FirstError)
	}
	if r.FirstError != "" {
		fmt.Fprintf(os.Stderr, "  %d errors, first: %s\n", r.Errors, r.FirstError)
	}
	n := float64(r.Requests + r.Errors)
	r.rps = float64(r.Requests) / r.Elapsed.Seconds()
	r.cpuPerReq = float64(cpu.Microseconds()) / 1000 / n
	r.tripsPerReq = float64(trips) / n
	r.poolerCPUPerReq = float64(pooler.Microseconds()) / 1000 / n
	return r, nil
}

func poolerCPU(t target) time.Duration {
	if t.poolerCPU == nil {
		return 0
	}
	return t.poolerCPU()
}

// cpuTime is this process's user + system CPU time so far.
func cpuTime() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// drive is the driver process: Conns clients send t's requests back to back
// for t.For and report the latencies.
func drive(in io.Reader, out io.Writer) error {
	var t target
	if err := json.NewDecoder(in).Decode(&t); err != nil {
		return err
	}
	if len(t.URLs) == 0 || t.Conns < 1 || t.For <= 0 {
		return errors.New("empty target")
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		MaxIdleConnsPerHost: t.Conns, MaxConnsPerHost: t.Conns, DisableCompression: true}}
	ctx := context.Background()
	start := time.Now()
	deadline := start.Add(t.For)
	var (
		mu        sync.Mutex
		latencies []float64
		res       result
		wg        sync.WaitGroup
	)
	for range t.Conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []float64
			var errs int
			var first string
			for time.Now().Before(deadline) {
				url := t.URLs[rand.IntN(len(t.URLs))]
				t0 := time.Now()
				if err := send(ctx, client, t, url); err != nil {
					errs++
					if first == "" {
						first = err.Error()
					}
					continue
				}
				mine = append(mine, float64(time.Since(t0).Microseconds())/1000)
			}
			mu.Lock()
			defer mu.Unlock()
			latencies = append(latencies, mine...)
			res.Errors += errs
			if res.FirstError == "" {
				res.FirstError = first
			}
		}()
	}
	wg.Wait()
	res.Elapsed = time.Since(start)
	res.Requests = len(latencies)
	if len(latencies) > 0 {
		slices.Sort(latencies)
		res.P50 = latencies[len(latencies)/2]
		res.P99 = latencies[min(len(latencies)-1, len(latencies)*99/100)]
	}
	return json.NewEncoder(out).Encode(res)
}
