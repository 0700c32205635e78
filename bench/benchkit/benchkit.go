// Package benchkit is what the benchmark commands share: the limits they
// lift, an instance served from the benchmark's process, a temporary
// database, a seeded tenant and a token, one checked request, the
// process's CPU time, and percentiles and medians.
package benchkit

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/haulgraph/haulgraph/app"
)

// LiftLimits lifts the per-client and per-tenant request rates and the
// GraphQL cost budget through the service's own configuration (the
// environment), unless the caller set them: the benchmarks measure the
// paths, not the limits in front of them.
func LiftLimits() {
	for k, v := range map[string]string{
		"HAULGRAPH_RATE_LIMIT_CLIENT":   "1000000",
		"HAULGRAPH_RATE_LIMIT_TENANT":   "1000000",
		"HAULGRAPH_GRAPHQL_COST_BUDGET": "1000000000",
		"HAULGRAPH_GRAPHQL_COST_REFILL": "1000000000",
	} {
		if os.Getenv(k) == "" {
			_ = os.Setenv(k, v)
		}
	}
}

// Serve runs an instance of cfg on ln with its workers; stop ends its server
// and workers and waits for them.
func Serve(ctx context.Context, cfg app.Config, ln net.Listener) (a *app.App, stop func(), err error) {
	cfg.Addr = ln.Addr().String()
	a, err = app.New(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		_ = ln.Close()
		return nil, nil, err
	}
	workers, stopWorkers := context.WithCancel(ctx)
	workersDone := make(chan struct{})
	go func() { defer close(workersDone); _ = a.Run(workers) }()
	srv := a.NewServer()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(a.Listener(ln)) }()
	return a, func() {
		_ = srv.Close()
		<-served
		stopWorkers()
		<-workersDone
		a.Close() // a traced instance exports what is left here
	}, nil
}

// Send makes one request and wants a 200 without GraphQL errors.
func Send(ctx context.Context, c *http.Client, method, url, body, token string) error {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
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

// CPUTime is this process's user + system CPU time so far.
func CPUTime() time.Duration {
	var u syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &u)
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// Percentile is the p-th percentile (0 to 100) of sorted, by the nearest
// rank below: sorted[len*p/100], the last at most.
func Percentile[T cmp.Ordered](sorted []T, p int) T {
	return sorted[min(len(sorted)-1, len(sorted)*p/100)]
}

// Median is the median of one column (get) of rounds, each column's on its
// own.
func Median[R any](rounds []R, get func(R) float64) float64 {
	v := make([]float64, len(rounds))
	for i, r := range rounds {
		v[i] = get(r)
	}
	slices.Sort(v)
	return Percentile(v, 50)
}

// Config is the configuration of a benchmark's instances: the
// environment's, the limits lifted; cmd names the benchmark for the error
// without DATABASE_URL.
func Config(cmd string) (app.Config, error) {
	if os.Getenv("DATABASE_URL") == "" {
		return app.Config{}, errors.New("DATABASE_URL is not set: run ./scripts/with-pg.sh go run ./bench/" + cmd)
	}
	LiftLimits()
	return app.FromEnv()
}

// StartDriver starts this program again as a load driver (env=1 in its
// environment), input on its stdin as JSON; it writes its result on out.
// The caller waits for cmd.
func StartDriver(ctx context.Context, env string, input any) (cmd *exec.Cmd, out *bytes.Buffer, err error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	in, err := json.Marshal(input)
	if err != nil {
		return nil, nil, err
	}
	cmd = exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), env+"=1")
	cmd.Stdin = bytes.NewReader(in)
	cmd.Stderr = os.Stderr
	out = &bytes.Buffer{}
	cmd.Stdout = out
	return cmd, out, cmd.Start()
}

// AsDriver makes this process the load driver StartDriver started, when
// env says so: it runs drive on stdin and stdout, then exits.
func AsDriver(env string, drive func(in io.Reader, out io.Writer) error) {
	if os.Getenv(env) != "1" {
		return
	}
	if err := drive(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bench driver:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

// DashboardBody is the GraphQL dashboard query over one month: 100
// statements with totals, line items and sub-lines.
func DashboardBody(from, to string) string {
	q := `query($from: DateTime!, $to: DateTime!) { settlementStatements(filter: {statementDateRange: {start: $from, end: $to}}, page: 0, pageSize: 100) {
  items { number status statementDate driver { name type }
    totals { grossIncome { amount currency } netIncome { amount currency } deductions { amount } loadedMiles }
    lineItems { category title amount { amount currency } subLines { description quantity rate amount { amount currency } } } } } }`
	b, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]string{"from": from, "to": to}})
	return string(b)
}
