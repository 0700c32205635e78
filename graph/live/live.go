// Package live runs the shared executions of subscriptions: one per
// group of identical subscribers, its encoded events handed to each member
// (the WebSocket and SSE transports' operations).
package live

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/graph/operation"
)

// Live executes subscriptions once per group of identical subscribers
// (Hasura's multiplexing, by identity rather than by batching variables):
// subscribers of the same tenant with the same scopes, operation text,
// operation name and variables would receive the same bytes for every event,
// so each event is executed and JSON-encoded once per group and the encoded
// payload is handed to every member. The group holds one hub subscription,
// whose filter runs before any execution; each execution gets fresh
// dataloaders (loaders.Extension runs per response).
type Live struct {
	subs    *eventlog.Subscriptions // its Stream is the instance's hub
	present graphql.ErrorPresenterFunc
	emitted eventschema.EmitFunc // nil: nobody watches payloads

	mu     sync.Mutex
	groups map[string]*liveGroup

	executions atomic.Int64
	members    atomic.Int64
	cutOff     atomic.Int64
	writes     atomic.Int64 // WebSocket write(2) calls of message batches
	frames     atomic.Int64 // messages those writes carried
	inPassing  atomic.Int64 // of those writes, made by a group's fan-out (Member.Flush)
	cutShort   atomic.Int64 // of those, the ones the socket took only in part
	wg         sync.WaitGroup
}

// New makes an empty set of groups over subs' hub; present renders the
// errors of a refused resume; emitted, when set, is told every payload a
// transport writes (tests validate them).
func New(subs *eventlog.Subscriptions, present graphql.ErrorPresenterFunc, emitted eventschema.EmitFunc) *Live {
	if subs == nil {
		subs = &eventlog.Subscriptions{}
	}
	return &Live{subs: subs, present: present, emitted: emitted, groups: map[string]*liveGroup{}}
}

// Executions counts subscription executions (one per group per event).
func (l *Live) Executions() int64 { return l.executions.Load() }

// Members is the number of live subscribers across groups.
func (l *Live) Members() int64 { return l.members.Load() }

// Writes counts the system calls that wrote WebSocket messages, Frames the
// messages they carried.
func (l *Live) Writes() int64 { return l.writes.Load() }

// Frames: see Writes.
func (l *Live) Frames() int64 { return l.frames.Load() }

// CutOff counts connections cut off for not reading their events in time.
func (l *Live) CutOff() int64 { return l.cutOff.Load() }

// InPassing counts the writes a group made itself, in passing, for the
// connections its event reached (see the WebSocket writer's flush); CutShort those of them
// whose socket took only part, the rest left to the connection's writer.
func (l *Live) InPassing() int64 { return l.inPassing.Load() }

// CutShort: see InPassing.
func (l *Live) CutShort() int64 { return l.cutShort.Load() }

// CountWrite counts a system call that wrote WebSocket messages, before it
// is made (a peer that has read it sees it counted).
func (l *Live) CountWrite() { l.writes.Add(1) }

// CountFrames counts n messages written.
func (l *Live) CountFrames(n int) { l.frames.Add(int64(n)) }

// CountCutOff counts a connection cut off for not reading in time.
func (l *Live) CountCutOff() { l.cutOff.Add(1) }

// CountInPassing counts a write a group's fan-out made itself; cutShort
// when the socket took only part of it.
func (l *Live) CountInPassing(cutShort bool) {
	l.inPassing.Add(1)
	if cutShort {
		l.cutShort.Add(1)
	}
}

// Cursor is the opaque cursor of pos for tenant ("" for no position).
func (l *Live) Cursor(tenant uuid.UUID, pos eventlog.Position) string {
	if pos == (eventlog.Position{}) {
		return ""
	}
	return l.subs.Cursors.Seal(tenant, pos)
}

// Groups is the number of groups, that is of hub subscriptions.
func (l *Live) Groups() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.groups)
}

// Wait returns when every group's goroutine has ended (all members left).
func (l *Live) Wait() { l.wg.Wait() }

// EventType is the event type rc's subscription streams, when someone
// watches the payloads written ("" otherwise: nothing to tell).
func (l *Live) EventType(rc *graphql.OperationContext) string {
	if l.emitted == nil {
		return ""
	}
	if f := rootField(rc); f != nil {
		return eventschema.SubscriptionFields[f.Name]
	}
	return ""
}

// Emit tells the watcher a payload of eventType written on channel.
func (l *Live) Emit(channel, eventType string, body []byte) {
	if eventType != "" {
		l.emitted(channel, eventType, body)
	}
}

// CodeSlowConsumer ends a subscription whose events could not be executed
// as fast as they came; the subscriber resumes with after: its last cursor.
const CodeSlowConsumer = "SLOW_CONSUMER"

// Member is one subscriber: an operation of a connection.
type Member struct {
	// Out writes one event's encoded payload, at its outbox position, to the
	// subscriber; it must not block (a connection that cannot take it is cut
	// off). SSE sends the position's cursor as the event's id.
	Out func(pos eventlog.Position, payload []byte)
	// Queue, when set, is Out without waking the subscriber's writer: the
	// group queues an event to every member, then wakes each once (wake),
	// so a connection holding several members writes their messages in
	// one system call rather than one each.
	Queue func(pos eventlog.Position, payload []byte)
	Wake  func()
	// Flush, when set, is Wake that may write the queued messages from the
	// group's goroutine, when the connection takes them at once: the group
	// calls it when no later event waits for it, and wake when some do (the
	// writers then batch several events per system call).
	Flush func()
	// Fail ends the member when its group's stream ended under it.
	Fail  func(errs gqlerror.List)
	group *liveGroup // guarded by Live.mu

	mu        sync.Mutex
	replaying bool              // resuming: live events wait in pending
	pending   []livePending     // bounded by maxPending
	overflow  bool              // pending overflowed: the resume fails
	last      eventlog.Position // of the last event written
}

type livePending struct {
	pos     eventlog.Position
	payload []byte
}

// maxPending bounds the live events a resuming subscriber holds while its
// replay runs (payloads are shared with the group: a slice entry each).
const maxPending = 10000

// deliver hands m one live event, in commit order: held while m replays,
// dropped when the replay already wrote it.
func (m *Member) deliver(pos eventlog.Position, payload []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	switch {
	case m.replaying && len(m.pending) >= maxPending:
		m.overflow = true
	case m.replaying:
		m.pending = append(m.pending, livePending{pos, payload})
	case pos == eventlog.Position{} || m.last.Before(pos):
		m.last = pos
		if m.Queue != nil {
			m.Queue(pos, payload)
		} else {
			m.Out(pos, payload)
		}
	}
}

// liveKey identifies subscribers that would receive the same bytes: where
// they resume from (after:) is not part of it, once replayed they share.
func liveKey(p *domain.Principal, rc *graphql.OperationContext) (string, error) {
	scopes := make([]string, len(p.Scopes))
	for i, s := range p.Scopes {
		scopes[i] = string(s)
	}
	slices.Sort(scopes)
	variables := rc.Variables
	if name := afterVariable(rc); name != "" {
		variables = maps.Clone(variables)
		delete(variables, name)
	}
	vars, err := json.Marshal(variables) // map keys come out sorted
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(len(rc.RawQuery) + len(vars) + 128)
	for _, part := range []string{p.TenantID.String(), strings.Join(scopes, " "), rc.OperationName, rc.RawQuery, string(vars)} {
		b.WriteString(part)
		b.WriteByte(0)
	}
	return b.String(), nil
}

// Join adds m to the group of its key, creating the group (and executing the
// operation's subscribe) when it is the first. The errors are the
// subscription's own refusal (missing scope, invalid filter): m did not join.
func (l *Live) Join(ctx context.Context, exec graphql.GraphExecutor, opCtx *graphql.OperationContext, m *Member) gqlerror.List {
	p := domain.PrincipalFrom(ctx)
	if p == nil {
		return gqlerror.List{gqlerror.Errorf("unauthenticated")}
	}
	key, err := liveKey(p, opCtx)
	if err != nil {
		return gqlerror.List{gqlerror.Errorf("variables: %v", err)}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	g := l.groups[key]
	if g == nil {
		var errs gqlerror.List
		if g, errs = l.start(exec, opCtx, p, key); errs != nil {
			return errs
		}
		l.groups[key] = g
	}
	g.mu.Lock()
	g.members[m] = struct{}{}
	g.mu.Unlock()
	m.group = g
	l.members.Add(1)
	return nil
}

// Leave removes m; the last member's leaving ends the group's execution.
func (l *Live) Leave(m *Member) {
	l.mu.Lock()
	defer l.mu.Unlock()
	g := m.group
	if g == nil {
		return
	}
	m.group = nil
	g.mu.Lock()
	_, ok := g.members[m]
	delete(g.members, m)
	empty := len(g.members) == 0
	g.mu.Unlock()
	if ok {
		l.members.Add(-1)
	}
	if empty && l.groups[g.key] == g {
		delete(l.groups, g.key)
		g.cancel()
	}
}

// liveGroup is one shared execution.
type liveGroup struct {
	live   *Live
	key    string
	ctx    context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	members map[*Member]struct{}

	seqMu  sync.Mutex
	seqs   []eventlog.Position // of events handed to the resolver, not yet executed
	opened bool
}

// start executes the subscribe of the group's first member with a context
// of the group's own (it outlives any one member's connection).
func (l *Live) start(exec graphql.GraphExecutor, opCtx *graphql.OperationContext, p *domain.Principal, key string) (*liveGroup, gqlerror.List) {
	ctx, cancel := context.WithCancel(context.Background())
	principal := *p
	principal.ClientID = "" // shared by clients of the same tenant and scopes
	ctx = domain.WithPrincipal(ctx, &principal)
	g := &liveGroup{live: l, key: key, cancel: cancel, members: map[*Member]struct{}{}}
	ctx = eventlog.WithStream(ctx, g)
	g.ctx = ctx
	next, ctx := exec.DispatchOperation(ctx, opCtx)
	if !g.opened {
		// The resolver refused before subscribing: a one-shot error response.
		defer cancel()
		if resp := next(ctx); resp != nil && len(resp.Errors) > 0 {
			return nil, resp.Errors
		}
		return nil, gqlerror.List{gqlerror.Errorf("the subscription could not start")}
	}
	l.wg.Add(1)
	go g.run(ctx, next)
	return g, nil
}

// Subscribe is the group's eventlog.Stream: it subscribes to the hub and
// records each delivered event's position for the execution it causes.
func (g *liveGroup) Subscribe(tenant uuid.UUID, f eventlog.Filter, sink eventlog.Sink) eventlog.Subscription {
	g.opened = true
	deliver := sink.Deliver
	sink.Deliver = func(ev *eventlog.LiveEvent) bool {
		g.seqMu.Lock()
		g.seqs = append(g.seqs, ev.Pos)
		g.seqMu.Unlock()
		return deliver(ev)
	}
	return g.live.subs.Stream.Subscribe(tenant, f, sink)
}

func (g *liveGroup) popSeq() eventlog.Position {
	g.seqMu.Lock()
	defer g.seqMu.Unlock()
	if len(g.seqs) == 0 {
		return eventlog.Position{}
	}
	s := g.seqs[0]
	g.seqs = g.seqs[1:]
	return s
}

// caughtUp reports whether no event waits for the group's execution.
func (g *liveGroup) caughtUp() bool {
	g.seqMu.Lock()
	defer g.seqMu.Unlock()
	return len(g.seqs) == 0
}

// maxFanOut bounds the events a group executes before handing them to its
// members together: under a burst a connection then gets several events in
// one write(2), the system call that is most of a message's cost.
const maxFanOut = 16

// fanOutBound is how many waiting events a group hands over at once:
// maxFanOut, or half a subscriber's buffer when that is smaller, so that one
// hand-over never fills the queue of a subscriber that keeps up.
func (l *Live) fanOutBound() int {
	n := maxFanOut
	if l.subs != nil && l.subs.Buffer > 0 {
		n = min(n, max(1, l.subs.Buffer/2))
	}
	return n
}

// run executes the group once per event and hands the one encoding to every
// member, in the hub's (commit) order: the event alone when the group is
// caught up, else with the events already waiting (up to fanOutBound).
func (g *liveGroup) run(ctx context.Context, next graphql.ResponseHandler) {
	defer g.live.wg.Done()
	var members []*Member
	var events []livePending
	most := g.live.fanOutBound()
	for {
		events = events[:0]
		ended := false
		for len(events) == 0 || (len(events) < most && !g.caughtUp()) {
			resp := next(ctx)
			if resp == nil {
				ended = true
				break
			}
			payload, err := operation.EncodeResponse(resp)
			if err != nil {
				payload = []byte(`{"errors":[{"message":"the event could not be encoded","extensions":{"code":"INTERNAL"}}]}`)
			}
			events = append(events, livePending{g.popSeq(), payload})
			g.live.executions.Add(1)
		}
		if len(events) > 0 {
			members = g.fanOut(events, members)
		}
		if ended {
			g.end()
			return
		}
	}
}

// fanOut queues events to every member, then wakes each member's writer,
// or writes in passing when no later event waits (members is scratch space).
func (g *liveGroup) fanOut(events []livePending, members []*Member) []*Member {
	g.mu.Lock()
	members = members[:0]
	for m := range g.members {
		members = append(members, m)
	}
	g.mu.Unlock()
	for _, m := range members {
		for _, e := range events {
			m.deliver(e.pos, e.payload)
		}
	}
	inPassing := g.caughtUp()
	for _, m := range members {
		switch {
		case inPassing && m.Flush != nil:
			m.Flush()
		case m.Wake != nil:
			m.Wake()
		}
	}
	clear(members)
	return members
}

// end runs when the group's stream ended: its members left (nothing to do)
// or the hub cut the group off because its execution fell behind; then every
// member ends with an error it can resume from.
func (g *liveGroup) end() {
	l := g.live
	l.mu.Lock()
	if l.groups[g.key] == g {
		delete(l.groups, g.key)
	}
	g.mu.Lock()
	members := make([]*Member, 0, len(g.members))
	for m := range g.members {
		members = append(members, m)
		m.group = nil
	}
	clear(g.members)
	g.mu.Unlock()
	l.members.Add(-int64(len(members)))
	l.mu.Unlock()
	g.cancel()
	if len(members) == 0 {
		return
	}
	e := gqlerror.Errorf("%s", eventlog.ErrSlowConsumer.Error())
	e.Extensions = map[string]any{"code": CodeSlowConsumer}
	for _, m := range members {
		m.Fail(gqlerror.List{e})
	}
}
