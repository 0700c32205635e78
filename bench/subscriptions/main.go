// Command subscriptions benchmarks live subscriptions: it starts a real
// HaulGraph server as a child process (so its memory is measured alone),
// holds N loadChanged subscriptions open over WebSocket, fires a burst of
// createLoad writes, and reports the commit-to-receive latency (p50, p99) and
// the server's memory per subscription.
//
//	./scripts/with-pg.sh go run ./bench/subscriptions -n 1000 -writes 50
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
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/gorilla/websocket"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/bench/benchkit"
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
	n := flag.Int("n", 1000, "subscriptions to hold open")
	perConn := flag.Int("per-conn", 1, "subscriptions per WebSocket connection")
	writes := flag.Int("writes", 50, "writes in the burst (each emits one load.changed to every subscription)")
	writers := flag.Int("writers", 4, "concurrent writers")
	rate := flag.Float64("rate", 0, "steady mode: writes per second (instead of a burst of -writes)")
	duration := flag.Duration("duration", 20*time.Second, "steady mode: how long to write at -rate")
	distinct := flag.Bool("distinct", false, "worst case: every subscription has different variables (no shared execution)")
	flag.Parse()
	if *rate > 0 {
		*writes = int(*rate * duration.Seconds())
	}
	if err := run(ctx, *n, *perConn, *writes, *writers, *rate, *distinct); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, n, perConn, writes, writers int, rate float64, distinct bool) error {
	if os.Getenv("DATABASE_URL") == "" {
		return errors.New("DATABASE_URL is not set: run ./scripts/with-pg.sh go run ./bench/subscriptions")
	}
	child, info, err := startServer(ctx)
	if err != nil {
		return err
	}
	defer func() { _ = child.Process.Signal(syscall.SIGTERM); _ = child.Wait() }()
	tok, err := benchkit.Token(ctx, info.URL, info.ClientID, info.Secret, app.DefaultAudience)
	if err != nil {
		return err
	}
	base, err := stats(info.URL)
	if err != nil {
		return err
	}
	rss0 := rss(child.Process.Pid)

	rec := &recorder{}
	conns := (n + perConn - 1) / perConn
	opened := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	errs := make(chan error, conns)
	for c := 0; c < conns; c++ {
		subs := min(perConn, n-c*perConn)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			conn, err := subscribe(info.URL, tok, c*perConn, subs, distinct)
			<-sem
			if err != nil {
				errs <- err
				return
			}
			go rec.read(conn)
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return err
	}
	var held serverStats
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if held, err = stats(info.URL); err != nil {
			return err
		}
		if held.Subscribers == int64(n) {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("only %d of %d subscriptions registered", held.Subscribers, n)
		}
		time.Sleep(100 * time.Millisecond)
	}
	rss1 := rss(child.Process.Pid)
	if f := os.Getenv("HG_BENCH_HEAP_PROFILE"); f != "" {
		if resp, err := http.Get(info.URL + "/debug/pprof/heap"); err == nil {
			b, _ := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			_ = os.WriteFile(f, b, 0o644)
		}
	}
	setup := time.Since(opened)

	profiled := make(chan struct{})
	if f := os.Getenv("HG_BENCH_CPU_PROFILE"); f != "" {
		go func() { // the server's CPU during the burst
			defer close(profiled)
			if resp, err := http.Get(info.URL + "/debug/pprof/profile?seconds=5"); err == nil {
				b, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				_ = os.WriteFile(f, b, 0o644)
			}
		}()
	} else {
		close(profiled)
	}
	burst := time.Now()
	cpu0, self0 := cpuTime(child.Process.Pid), cpuTime(os.Getpid())
	if err := writeBurst(ctx, info, tok, writes, writers, rate); err != nil {
		return err
	}
	wrote := time.Since(burst)
	want := int64(n * writes)
	deadline := time.Now().Add(3 * time.Minute)
	for rec.count.Load() < want && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cpu, self := cpuTime(child.Process.Pid)-cpu0, cpuTime(os.Getpid())-self0
	<-profiled
	final, _ := stats(info.URL)
	lat := rec.sorted()

	fmt.Printf("subscriptions      %d over %d WebSocket connections (graphql-transport-ws), opened in %s\n", n, conns, setup.Round(time.Millisecond))
	mode := "burst"
	if rate > 0 {
		mode = fmt.Sprintf("steady %.0f/s", rate)
	}
	fmt.Printf("%-18s %d createLoad writes by %d writers in %s; %d groups, %d executions\n", mode, writes, writers, wrote.Round(time.Millisecond),
		final.Groups, final.Executions-held.Executions)
	if got := rec.count.Load(); got > 0 {
		fmt.Printf("server CPU         %s for %d messages → %.1f µs per delivered message (utime+stime from /proc, writes included)\n",
			cpu.Round(time.Millisecond), got, float64(cpu.Microseconds())/float64(got))
		fmt.Printf("client CPU         %s (this process: writers and %d WebSocket readers, sharing the machine)\n", self.Round(time.Millisecond), conns)
	}
	if w := final.Writes - held.Writes; w > 0 {
		fmt.Printf("socket writes      %d for %d messages → %.1f messages per write(2); %d in passing by the group (%d cut short)\n",
			w, final.Frames-held.Frames, float64(final.Frames-held.Frames)/float64(w), final.InPassing-held.InPassing,
			final.CutShort-held.CutShort)
	}
	fmt.Printf("events received    %d of %d (evicted slow subscribers: %d; refused subscribes retried: %d)\n", rec.count.Load(), want, final.Evictions, rec.retries.Load())
	if len(lat) > 0 {
		fmt.Printf("commit→receive     p50 %s   p99 %s   max %s\n", pct(lat, 0.50), pct(lat, 0.99), lat[len(lat)-1].Round(time.Microsecond))
	}
	heap := int64(held.HeapInuse+held.StackInuse) - int64(base.HeapInuse+base.StackInuse)
	fmt.Printf("server memory      Go heap+stacks %+.1f MiB → %.1f KiB per subscription; RSS %+.1f MiB → %.1f KiB per subscription; goroutines %d → %d\n",
		mib(heap), kib(heap)/float64(n), mib(rss1-rss0), kib(rss1-rss0)/float64(n), base.Goroutines, held.Goroutines)
	if rec.count.Load() < want {
		return fmt.Errorf("%d events missing", want-rec.count.Load())
	}
	return nil
}

// startServer runs this binary in server mode and reads its ready line.
func startServer(ctx context.Context) (*exec.Cmd, ready, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, ready{}, err
	}
	cmd := exec.CommandContext(ctx, exe)
	cmd.Env = append(os.Environ(), "HG_BENCH_SERVE=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, ready{}, err
	}
	if err := cmd.Start(); err != nil {
		return nil, ready{}, err
	}
	line, err := bufio.NewReader(out).ReadBytes('\n')
	var info ready
	if err == nil {
		err = json.Unmarshal(line, &info)
	}
	if err != nil {
		_ = cmd.Process.Kill()
		return nil, ready{}, fmt.Errorf("server did not start: %w", err)
	}
	return cmd, info, nil
}

type wsMsg struct {
	ID      string          `json:"id,omitempty"`
	Type    string          `json:"type"`
	Payload json.RawMessage `json:"payload,omitempty"`
}

func subscribe(base, token string, first, subs int, distinct bool) (*websocket.Conn, error) {
	d := websocket.Dialer{HandshakeTimeout: 30 * time.Second, Subprotocols: []string{"graphql-transport-ws"}}
	c, _, err := d.Dial("ws"+strings.TrimPrefix(base, "http")+"/graphql", nil)
	if err != nil {
		return nil, err
	}
	init, _ := json.Marshal(map[string]string{"Authorization": "Bearer " + token})
	if err := c.WriteJSON(wsMsg{Type: "connection_init", Payload: init}); err != nil {
		return nil, err
	}
	var ack wsMsg
	if err := c.ReadJSON(&ack); err != nil || ack.Type != "connection_ack" {
		return nil, fmt.Errorf("connection_init: %v %s", err, ack.Type)
	}
	for i := 0; i < subs; i++ {
		p := subscription
		if distinct { // the text differs (a comment): the same work per event, nothing shared
			p, _ = json.Marshal(map[string]string{"query": subscriptionQuery + "\n# subscriber " + strconv.Itoa(first+i)})
		}
		if err := c.WriteJSON(wsMsg{ID: strconv.Itoa(i), Type: "subscribe", Payload: p}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

const subscriptionQuery = `subscription { loadChanged { id timestamp data { load { loadNumber status } } } }`

var subscription, _ = json.Marshal(map[string]string{"query": subscriptionQuery})

// recorder collects the latency of every received event.
type recorder struct {
	wmu     sync.Mutex // serializes writes to the connections (pong, retries)
	errOnce sync.Once
	retries atomic.Int64
	mu      sync.Mutex
	lat     []time.Duration
	count   atomic.Int64
}

func (r *recorder) read(c *websocket.Conn) {
	var local []time.Duration
	defer func() { r.mu.Lock(); r.lat = append(r.lat, local...); r.mu.Unlock() }()
	var payload struct {
		Errors []json.RawMessage `json:"errors"`
		Data   struct {
			LoadChanged struct{ Timestamp string } `json:"loadChanged"`
		} `json:"data"`
	}
	for {
		_, raw, err := c.ReadMessage()
		now := time.Now()
		if err != nil {
			return
		}
		// An event without errors (checked by bytes: the reader shares the
		// machine with the server it measures) needs only its timestamp.
		if ts, ok := eventTimestamp(raw); ok {
			local = r.record(local, now.Sub(ts))
			continue
		}
		var m wsMsg
		if err := json.Unmarshal(raw, &m); err != nil {
			continue
		}
		switch m.Type {
		case "ping":
			r.write(c, wsMsg{Type: "pong"})
			continue
		case "next":
			payload.Errors = nil
			if json.Unmarshal(m.Payload, &payload) == nil && len(payload.Errors) == 0 {
				break
			}
			fallthrough
		case "error":
			// Refused, e.g. THROTTLED: one client opening thousands of
			// subscriptions spends its query-cost budget. Retry later, as a
			// well-behaved client does.
			r.retries.Add(1)
			r.errOnce.Do(func() { fmt.Fprintf(os.Stderr, "a subscription was refused (retrying after 1s): %s\n", raw) })
			time.AfterFunc(time.Second, func() { r.write(c, wsMsg{ID: m.ID, Type: "subscribe", Payload: subscription}) })
			continue
		default:
			continue
		}
		ts, err := time.Parse(time.RFC3339Nano, payload.Data.LoadChanged.Timestamp)
		if err != nil {
			continue
		}
		local = r.record(local, now.Sub(ts))
	}
}

// record counts one event and keeps its latency in local, handing the
// samples over now and then.
func (r *recorder) record(local []time.Duration, d time.Duration) []time.Duration {
	local = append(local, d)
	if r.count.Add(1)%1000 == 0 {
		r.mu.Lock()
		r.lat = append(r.lat, local...)
		r.mu.Unlock()
		local = local[:0]
	}
	return local
}

// eventTimestamp reads the timestamp of a "next" message without errors
// (subscriptionQuery selects it as loadChanged's second field).
func eventTimestamp(raw []byte) (time.Time, bool) {
	const mark = `"timestamp":"`
	if !bytes.Contains(raw, []byte(`"type":"next"`)) || bytes.Contains(raw, []byte(`"errors"`)) {
		return time.Time{}, false
	}
	i := bytes.Index(raw, []byte(mark))
	if i < 0 {
		return time.Time{}, false
	}
	rest := raw[i+len(mark):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return time.Time{}, false
	}
	ts, err := time.Parse(time.RFC3339Nano, string(rest[:end]))
	return ts, err == nil
}

func (r *recorder) write(c *websocket.Conn, m wsMsg) {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	_ = c.WriteJSON(m)
}

func (r *recorder) sorted() []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := slices.Clone(r.lat)
	slices.Sort(out)
	return out
}

// writeBurst sends writes createLoad mutations, as fast as writers allow or,
// with rate > 0, at that many per second.
func writeBurst(ctx context.Context, info ready, token string, writes, writers int, rate float64) error {
	var tick <-chan time.Time
	if rate > 0 {
		t := time.NewTicker(time.Duration(float64(time.Second) / rate))
		defer t.Stop()
		tick = t.C
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: writers}, Timeout: time.Minute}
	next := atomic.Int64{}
	prefix := strconv.FormatInt(time.Now().UnixNano(), 36)
	var wg sync.WaitGroup
	errc := make(chan error, writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= int64(writes); i = next.Add(1) {
				if tick != nil {
					<-tick
				}
				body, _ := json.Marshal(map[string]any{
					"query": `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
					"variables": map[string]any{"in": map[string]any{"loadNumber": fmt.Sprintf("B-%s-%d", prefix, i),
						"subsidiaryId": info.Subsidiary, "stops": []any{map[string]any{"type": "Pickup"}}}}})
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, info.URL+"/graphql", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(req)
				if err != nil {
					errc <- err
					return
				}
				var out struct{ Errors []any }
				_ = json.NewDecoder(resp.Body).Decode(&out)
				_ = resp.Body.Close()
				if len(out.Errors) > 0 || resp.StatusCode != http.StatusOK {
					errc <- fmt.Errorf("write %d: status %d %v", i, resp.StatusCode, out.Errors)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errc)
	return <-errc
}

func stats(base string) (serverStats, error) {
	var s serverStats
	resp, err := http.Get(base + "/bench/stats")
	if err != nil {
		return s, err
	}
	defer resp.Body.Close()
	return s, json.NewDecoder(resp.Body).Decode(&s)
}

// cpuTime is a process's user+system CPU time (Linux /proc/<pid>/stat).
func cpuTime(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 on
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ
}

// rss is a process's resident set in bytes (Linux /proc).
func rss(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func pct(sorted []time.Duration, p float64) time.Duration {
	return sorted[int(p*float64(len(sorted)-1))].Round(time.Microsecond)
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
func kib(b int64) float64 { return float64(b) / (1 << 10) }
