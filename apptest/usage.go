package apptest

import (
	"bufio"
	"context"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Usage is what this process holds and has spent at one moment. The
// instance under test runs in the test's own process, so a hostile-input
// test that runs alone (not t.Parallel: parallel tests wait until every
// sequential one has ended) reads what the server spent on an attack as the
// difference of two readings; the test's own client adds a small share.
type Usage struct {
	CPU        time.Duration // user + system time of the process so far (logged only: load changes it)
	Allocated  uint64        // bytes allocated on the heap so far (runtime.MemStats.TotalAlloc)
	RSS        int64         // resident set now, bytes
	PeakRSS    int64         // the most resident since the last ResetPeakRSS, bytes
	FDs        int           // open file descriptors (sockets included)
	Goroutines int
}

// ReadUsage reads this process's Usage.
func ReadUsage(t testing.TB) Usage {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("apptest: getrusage: %v", err)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	u := Usage{
		CPU:        time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		Allocated:  ms.TotalAlloc,
		Goroutines: runtime.NumGoroutine(),
	}
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		switch k {
		case "VmRSS":
			u.RSS = kib(v)
		case "VmHWM":
			u.PeakRSS = kib(v)
		}
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	u.FDs = len(fds)
	return u
}

// kib reads a /proc/self/status size ("  1234 kB") as bytes.
func kib(v string) int64 {
	n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
	return n << 10
}

// ResetPeakRSS starts PeakRSS afresh from the resident set now (Linux's
// /proc/self/clear_refs, value 5), so that a reading after an attack shows
// the most the attack made the process hold.
func ResetPeakRSS(t testing.TB) {
	t.Helper()
	runtime.GC()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Fatalf("apptest: reset peak RSS: %v", err)
	}
}

// Backends counts the PostgreSQL connections open to the instance's
// database (pg_stat_activity), this query's own included.
func (s *Server) Backends(t testing.TB) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int
	if err := s.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()`).Scan(&n); err != nil {
		t.Fatalf("apptest: backends: %v", err)
	}
	return n
}

// BusyBackends counts the PostgreSQL connections to the instance's database
// that are in a transaction or running a statement, other than this
// query's own: what a request still holds (an idle pooled connection is not
// counted).
func (s *Server) BusyBackends(t testing.TB) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int
	err := s.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`).Scan(&n)
	if err != nil {
		t.Fatalf("apptest: busy backends: %v", err)
	}
	return n
}
