package app

import (
	"testing"
	"time"
)

// The body deadline never lies beyond now + idle, never before the rate's
// due time of the bytes read, and survives any count and rate.
func FuzzBodyDeadline(f *testing.F) {
	f.Add(int64(0), int64(0), int64(time.Second), int64(4096), int64(0))
	f.Add(int64(0), int64(30e9), int64(10e9), int64(1), int64(1<<62))
	f.Add(int64(5e9), int64(6e9), int64(1), int64(1<<40), int64(25<<20))
	f.Fuzz(func(t *testing.T, start, elapsed, idle, rate, n int64) {
		if rate <= 0 || idle <= 0 || idle > int64(time.Hour) || elapsed < 0 || elapsed > int64(24*time.Hour) || n < 0 || start < 0 || start > 1<<50 {
			t.Skip()
		}
		s := time.Unix(0, start)
		now := s.Add(time.Duration(elapsed))
		d := bodyDeadline(s, now, time.Duration(idle), rate, n)
		if d.After(now.Add(time.Duration(idle))) {
			t.Fatalf("deadline %v after now + idle %v", d, now.Add(time.Duration(idle)))
		}
		if d.Before(s.Add(time.Duration(idle))) {
			t.Fatalf("deadline %v before start + idle", d)
		}
	})
}

func TestBodyDeadline(t *testing.T) {
	start := time.Unix(1000, 0)
	// 50 bytes after 30 s at a minimum of 1 KiB/s: due long ago.
	if d := bodyDeadline(start, start.Add(30*time.Second), 10*time.Second, 1024, 50); !d.Before(start.Add(30 * time.Second)) {
		t.Fatalf("a trickle is not due: %v", d)
	}
	// 25 MB read fast: the idle bound, not the credit, applies.
	now := start.Add(time.Second)
	if d := bodyDeadline(start, now, 10*time.Second, 4096, 25<<20); !d.Equal(now.Add(10 * time.Second)) {
		t.Fatalf("deadline %v, want now + idle", d)
	}
}
