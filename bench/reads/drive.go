package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/bench/benchkit"
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

// send makes one request of t and wants a 200 without GraphQL errors.
func send(ctx context.Context, c *http.Client, t target, url string) error {
	return benchkit.Send(ctx, c, t.Method, url, t.Body, t.Token)
}

// measure runs one round of t in a driver process and reads this process's
// CPU time and t's round trips around it.
func measure(ctx context.Context, t target, o options) (round, error) {
	t.Conns, t.For = o.conns, o.duration
	cmd, out, err := benchkit.StartDriver(ctx, driveEnv, t)
	if err != nil {
		return round{}, err
	}
	// The driver starts its clock when it has read its target; the child's
	// start-up costs this process nothing.
	cpu0, trips0, pooler0 := benchkit.CPUTime(), t.trips(), poolerCPU(t)
	if err := cmd.Wait(); err != nil {
		return round{}, err
	}
	cpu, trips, pooler := benchkit.CPUTime()-cpu0, t.trips()-trips0, poolerCPU(t)-pooler0
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
		res.P50, res.P99 = benchkit.Percentile(latencies, 50), benchkit.Percentile(latencies, 99)
	}
	return json.NewEncoder(out).Encode(res)
}
