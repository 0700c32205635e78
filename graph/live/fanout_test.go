package live

import (
	"context"
	"slices"
	"testing"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// TestWaitingEventsGoOutTogether: events already waiting for a group's
// execution reach each member together (at most maxFanOut at a time), with
// one wake-up rather than one per event; a group that has caught up writes
// in passing (flush) instead of waking the writer.
func TestWaitingEventsGoOutTogether(t *testing.T) {
	t.Parallel()
	r := newFanOutRig(t, &Live{})
	r.wait(5) // before the group's first execution
	r.start()
	r.expect("5 waiting", "flush", 1, 5)
	r.wait(1)
	r.expect("1 alone", "flush", 6, 6)
	// 21 arrive at once: maxFanOut of them go out with more waiting (wake:
	// the writers will batch), then the rest.
	r.wait(21)
	r.expect("maxFanOut of 21", "wake", 7, 6+maxFanOut)
	r.expect("the rest", "flush", 7+maxFanOut, 27)
	r.stop(27)
}

// TestFanOutBoundedBySubscriberBuffer: with a small subscriber buffer (4) a
// group hands over half of it at a time, so a subscriber that keeps up is
// never cut off by one hand-over.
func TestFanOutBoundedBySubscriberBuffer(t *testing.T) {
	t.Parallel()
	r := newFanOutRig(t, &Live{subs: &eventlog.Subscriptions{Buffer: 4}})
	r.wait(5)
	r.start()
	r.expect("first 2", "wake", 1, 2)
	r.expect("next 2", "wake", 3, 4)
	r.expect("last", "flush", 5, 5)
	r.stop(5)
}

// fanOutRig drives a group's run with canned executions and two members
// that tell, when woken (or flushed), which events they were queued since.
type fanOutRig struct {
	t         *testing.T
	g         *liveGroup
	ctx       context.Context
	cancel    context.CancelFunc
	responses chan *graphql.Response
	members   []chan fanOutWake
	seq       int64
	done      chan struct{}
}

type fanOutWake struct {
	how string
	got []int64 // by seq
}

func newFanOutRig(t *testing.T, l *Live) *fanOutRig {
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	r := &fanOutRig{t: t, ctx: ctx, cancel: cancel, responses: make(chan *graphql.Response, 64), done: make(chan struct{}),
		g:       &liveGroup{live: l, cancel: cancel, members: map[*Member]struct{}{}},
		members: []chan fanOutWake{make(chan fanOutWake, 8), make(chan fanOutWake, 8)}}
	for _, woken := range r.members {
		var got []int64 // the group's goroutine's own
		tell := func(how string) { woken <- fanOutWake{how, got}; got = nil }
		r.g.members[&Member{
			Queue: func(pos eventlog.Position, _ []byte) { got = append(got, pos.Seq) },
			Wake:  func() { tell("wake") },
			Flush: func() { tell("flush") },
			Fail:  func(gqlerror.List) {},
		}] = struct{}{}
	}
	return r
}

// wait has the hub hand the group n events.
func (r *fanOutRig) wait(n int) {
	r.g.seqMu.Lock()
	defer r.g.seqMu.Unlock()
	for range n {
		r.seq++
		r.g.seqs = append(r.g.seqs, eventlog.Position{Xact: 1, Seq: r.seq})
		r.responses <- &graphql.Response{Data: []byte(`{}`)}
	}
}

func (r *fanOutRig) start() {
	next := func(ctx context.Context) *graphql.Response {
		select {
		case resp := <-r.responses:
			return resp
		case <-ctx.Done():
			return nil
		}
	}
	r.g.live.wg.Add(1)
	go func() { defer close(r.done); r.g.run(r.ctx, next) }()
}

// expect: every member was told how, with the events from..to.
func (r *fanOutRig) expect(step, how string, from, to int64) {
	r.t.Helper()
	var seqs []int64
	for i := from; i <= to; i++ {
		seqs = append(seqs, i)
	}
	for i, woken := range r.members {
		if w := <-woken; w.how != how || !slices.Equal(w.got, seqs) {
			r.t.Fatalf("%s: member %d: %s with %v, want %s with %v", step, i, w.how, w.got, how, seqs)
		}
	}
}

func (r *fanOutRig) stop(executions int64) {
	r.t.Helper()
	r.cancel()
	<-r.done
	if n := r.g.live.Executions(); n != executions {
		r.t.Fatalf("%d executions, want %d", n, executions)
	}
}
