package graph

import (
	"context"
	"slices"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/domain"
)

// TestWaitingEventsGoOutTogether: events already waiting for a group's
// execution reach each member together (at most maxFanOut at a time), with
// one wake-up rather than one per event; a group that has caught up writes
// in passing (flush) instead of waking the writer.
func TestWaitingEventsGoOutTogether(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	g := &liveGroup{live: &Live{}, cancel: cancel, members: map[*liveMember]struct{}{}}
	// A member tells, when woken (or flushed), which events it was queued
	// since the last time.
	type wakeUp struct {
		how string
		got []int64 // by seq
	}
	members := []chan wakeUp{make(chan wakeUp, 8), make(chan wakeUp, 8)}
	for _, woken := range members {
		var got []int64 // the group's goroutine's own
		tell := func(how string) { woken <- wakeUp{how, got}; got = nil }
		g.members[&liveMember{
			queue: func(pos domain.EventPosition, _ []byte) { got = append(got, pos.Seq) },
			wake:  func() { tell("wake") },
			flush: func() { tell("flush") },
			fail:  func(gqlerror.List) {},
		}] = struct{}{}
	}
	responses := make(chan *graphql.Response, 64)
	next := func(ctx context.Context) *graphql.Response {
		select {
		case r := <-responses:
			return r
		case <-ctx.Done():
			return nil
		}
	}
	seq := int64(0)
	wait := func(n int) { // the hub hands the group n events
		g.seqMu.Lock()
		defer g.seqMu.Unlock()
		for range n {
			seq++
			g.seqs = append(g.seqs, domain.EventPosition{Xact: 1, Seq: seq})
			responses <- &graphql.Response{Data: []byte(`{}`)}
		}
	}
	expect := func(step, how string, seqs []int64) {
		t.Helper()
		for i, woken := range members {
			if w := <-woken; w.how != how || !slices.Equal(w.got, seqs) {
				t.Fatalf("%s: member %d: %s with %v, want %s with %v", step, i, w.how, w.got, how, seqs)
			}
		}
	}
	seqsFrom := func(from, to int64) []int64 {
		var s []int64
		for i := from; i <= to; i++ {
			s = append(s, i)
		}
		return s
	}

	wait(5) // before the group's first execution
	g.live.wg.Add(1)
	done := make(chan struct{})
	go func() { defer close(done); g.run(ctx, next) }()
	expect("5 waiting", "flush", seqsFrom(1, 5))
	wait(1)
	expect("1 alone", "flush", []int64{6})
	// 21 arrive at once: maxFanOut of them go out with more waiting (wake:
	// the writers will batch), then the rest.
	wait(21)
	expect("maxFanOut of 21", "wake", seqsFrom(7, 6+maxFanOut))
	expect("the rest", "flush", seqsFrom(7+maxFanOut, 27))
	cancel()
	<-done
	if n := g.live.Executions(); n != 27 {
		t.Fatalf("%d executions, want 27", n)
	}
}
