package live

import (
	"context"
	"sync"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/graph/operation"
)

// replayPage is how many stored events one replay read takes.
const replayPage = 100

// rootField is the operation's one subscription field.
func rootField(rc *graphql.OperationContext) *graphql.CollectedField {
	if rc.Operation == nil {
		return nil
	}
	fields := graphql.CollectFields(rc, rc.Operation.SelectionSet, []string{"Subscription"})
	if len(fields) != 1 {
		return nil
	}
	return &fields[0]
}

// AfterArgument is the subscription's after: value ("" when absent).
func AfterArgument(rc *graphql.OperationContext) string {
	f := rootField(rc)
	if f == nil {
		return ""
	}
	s, _ := f.ArgumentMap(rc.Variables)["after"].(string)
	return s
}

// afterVariable names the variable after: is given by, if it is one.
func afterVariable(rc *graphql.OperationContext) string {
	f := rootField(rc)
	if f == nil {
		return ""
	}
	if a := f.Arguments.ForName("after"); a != nil && a.Value != nil && a.Value.Kind == ast.Variable {
		return a.Value.Raw
	}
	return ""
}

// Resume joins m to its group and first replays to m alone, in outbox
// order, the stored events after cursor that its filter allows, then lets
// the live events through: those that arrived during the replay were held
// in m and the ones the replay already wrote are dropped, so m receives each
// event once, with no gap at the seam. write queues one replayed payload and
// waits for room (the replay is paged and back-pressured by the connection);
// an error from it ends the replay. The errors are m's refusal (bad or
// expired cursor, missing scope); on any refusal m has not joined.
func (l *Live) Resume(ctx context.Context, exec graphql.GraphExecutor, opCtx *graphql.OperationContext, m *Member, cursor string,
	write func(ctx context.Context, pos eventlog.Position, payload []byte) error) gqlerror.List {
	ctx = graphql.WithOperationContext(ctx, opCtx)
	after, err := l.subs.ResumeAt(ctx, cursor)
	if err != nil {
		return gqlerror.List{l.present(ctx, err)}
	}
	from := after // the subscriber has every event up to here already
	m.replaying = true
	if errs := l.Join(ctx, exec, opCtx, m); errs != nil {
		return errs
	}
	// Every event after upTo reaches m live: the group was subscribed
	// before upTo was read.
	upTo := l.position()
	refuse := func(err error) gqlerror.List {
		l.Leave(m)
		return gqlerror.List{l.present(ctx, err)}
	}
	feed := &replayFeed{}
	rctx, cancel := context.WithCancel(eventlog.WithStream(ctx, feed))
	defer cancel()
	next, rctx := exec.DispatchOperation(rctx, opCtx)
	if !feed.subscribed() {
		l.Leave(m)
		if resp := next(rctx); resp != nil && len(resp.Errors) > 0 {
			return resp.Errors
		}
		return gqlerror.List{gqlerror.Errorf("the subscription could not start")}
	}
	for {
		events, last, more, err := l.subs.Replay(ctx, feed.filter, after, upTo, replayPage)
		if err != nil {
			return refuse(err)
		}
		for _, ev := range events {
			if !feed.deliver(ev) { // one event in, one response out
				l.Leave(m)
				return nil // the subscriber has gone: the execution ended
			}
			resp := next(rctx)
			if resp == nil {
				l.Leave(m)
				return nil // the subscriber has gone
			}
			payload, err := operation.EncodeResponse(resp)
			if err != nil {
				return refuse(err)
			}
			if write(ctx, ev.Pos, payload) != nil {
				l.Leave(m)
				return nil
			}
			l.executions.Add(1)
		}
		after = last
		if !more {
			break
		}
	}
	// The seam: what the replay covered is done; the held live events
	// after it follow in order.
	m.mu.Lock()
	overflow := m.overflow
	if !overflow {
		// Nothing at or before the resume point goes out again, nor what
		// the replay covered. The hub may stand before the resume point
		// (this instance's relay behind the one that issued the cursor):
		// its late events up to the cursor are then dropped, not resent.
		for _, p := range []eventlog.Position{upTo, from} {
			if m.last.Before(p) {
				m.last = p
			}
		}
		for _, p := range m.pending {
			if m.last.Before(p.pos) {
				m.last = p.pos
				m.Out(p.pos, p.payload)
			}
		}
		m.pending, m.replaying = nil, false
	}
	m.mu.Unlock()
	if overflow {
		l.Leave(m)
		e := gqlerror.Errorf("%s", "the live events that came during the replay overflowed: resume again from the last cursor received")
		e.Extensions = map[string]any{"code": CodeSlowConsumer}
		return gqlerror.List{e}
	}
	return nil
}

// position is where the hub stands: the last event it was handed.
func (l *Live) position() eventlog.Position {
	if h, ok := l.subs.Stream.(interface{ Position() eventlog.Position }); ok {
		return h.Position()
	}
	return eventlog.Position{}
}

// replayFeed is the event stream of a replay's private execution: the
// resolver subscribes to it (after authorization and validation), and the
// replay hands it stored events one at a time. Close runs on its own
// goroutine when the execution's context ends (the client went away), while
// the replay may be delivering: mu orders the two, so that no event is
// delivered once the sink has ended (its channel is closed).
type replayFeed struct {
	filter eventlog.Filter

	mu     sync.Mutex
	sink   eventlog.Sink
	closed bool
}

func (f *replayFeed) Subscribe(_ uuid.UUID, filter eventlog.Filter, sink eventlog.Sink) eventlog.Subscription {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.filter, f.sink = filter, sink
	return f
}

// subscribed reports whether the resolver subscribed (it was authorized).
func (f *replayFeed) subscribed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sink.Deliver != nil
}

// deliver hands the execution one stored event; false once it has ended.
func (f *replayFeed) deliver(ev *eventlog.LiveEvent) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	return f.sink.Deliver(ev) // never blocks: the sink's buffer takes one event
}

// Close ends the execution's stream (its context ended); no deliver follows.
func (f *replayFeed) Close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	if f.sink.Ended != nil {
		f.sink.Ended(false)
	}
}
