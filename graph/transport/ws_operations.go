package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"go.opentelemetry.io/otel/trace"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/graph/live"
	"github.com/haulgraph/haulgraph/graph/operation"
)

// wsOp is one operation of the connection.
type wsOp struct {
	id     string
	member *live.Member // a subscription's place in its group
	cancel func()       // ends a resume in progress
	head   []byte       // `{"id":…,"type":"next","payload":`
	event  string       // the event type streamed, when payloads are watched
	gone   atomic.Bool  // removed from the connection's operations
	span   trace.Span   // the operation's, ended when it is removed
}

// endSpan ends the operation's span (none in a bare wsOp).
func (op *wsOp) endSpan() {
	if op.span != nil {
		op.span.End()
	}
}

// start runs an operation: a query or mutation once, a subscription by
// joining its shared execution. Refusals end only this operation.
func (w *wsConn) start(id string, payload json.RawMessage) bool {
	w.mu.Lock()
	dup, full := w.ops[id] != nil, len(w.ops) >= w.o.MaxSubscriptions
	w.mu.Unlock()
	switch {
	case dup && !w.legacy:
		w.end(CloseDuplicateID, "Subscriber for "+id+" already exists")
		return false
	case dup:
		w.refuse(id, gqlerror.List{operation.CodedError(domain.CodeInvalid, "operation id "+strconv.Quote(id)+" is already in use")})
		return true
	case full:
		w.refuse(id, gqlerror.List{operation.CodedError(domain.CodeRateLimited,
			"at most "+strconv.Itoa(w.o.MaxSubscriptions)+" subscriptions per connection: complete one first")})
		return true
	}
	var params graphql.RawParams
	dec := json.NewDecoder(bytes.NewReader(payload))
	dec.UseNumber()
	if err := dec.Decode(&params); err != nil || params.Query == "" && params.Extensions == nil {
		if !w.legacy {
			w.end(CloseInvalidMessage, "Invalid message received: subscribe needs a payload with a query")
			return false
		}
		w.refuse(id, gqlerror.List{operation.CodedError(domain.CodeInvalid, "the payload needs a query")})
		return true
	}
	if w.o.Admit != nil {
		if err := w.o.Admit(w.ctx); err != nil {
			w.refuse(id, gqlerror.List{domainErr(err)})
			return true
		}
	}
	params.ReadTime = graphql.TraceTiming{Start: graphql.Now(), End: graphql.Now()}
	opCtx, errs := w.exec.CreateOperationContext(w.ctx, &params)
	if errs != nil {
		resp := w.exec.DispatchError(graphql.WithOperationContext(w.ctx, opCtx), errs)
		w.refuse(id, resp.Errors)
		return true
	}
	opSpanCtx, span := startOperation(w.ctx, opCtx)
	op := &wsOp{id: id, head: w.head(id), span: span}
	w.add(op)
	if opCtx.Operation.Operation != ast.Subscription {
		w.workers.Add(1)
		go func() {
			defer w.workers.Done()
			next, ctx := w.exec.DispatchOperation(opSpanCtx, opCtx)
			resp := next(ctx)
			if w.remove(id) == op {
				w.next(op, resp)
				w.complete(id)
			}
		}()
		return true
	}
	op.event = w.o.Live.EventType(opCtx)
	op.member = &live.Member{
		Out:   func(_ eventlog.Position, body []byte) { w.deliver(op, body, true) },
		Queue: func(_ eventlog.Position, body []byte) { w.deliver(op, body, false) },
		Wake:  w.out.signal,
		Flush: w.out.flush,
		Fail: func(errs gqlerror.List) {
			if w.remove(id) == op {
				w.refuse(id, errs)
			}
		},
	}
	if cursor := live.AfterArgument(opCtx); cursor != "" {
		w.resume(op, opCtx, cursor)
		return true
	}
	if errs := w.o.Live.Join(w.ctx, w.exec, opCtx, op.member); errs != nil {
		w.remove(id)
		w.refuse(id, errs)
	}
	return true
}

// resume replays op's missed events, then joins it to the live ones, in a
// worker of the connection (the reads must not stall its other operations).
func (w *wsConn) resume(op *wsOp, opCtx *graphql.OperationContext, cursor string) {
	ctx, cancel := context.WithCancel(w.ctx)
	op.cancel = cancel
	w.workers.Add(1)
	go func() {
		defer w.workers.Done()
		defer cancel()
		errs := w.o.Live.Resume(ctx, w.exec, opCtx, op.member, cursor, func(ctx context.Context, _ eventlog.Position, body []byte) error {
			if err := w.out.sendWait(ctx, wsFrame{head: op.head, body: body, tail: true}, &op.gone); err != nil {
				return err
			}
			w.o.Live.Emit(eventschema.ChannelGraphQLWS, op.event, body)
			return nil
		})
		if ctx.Err() != nil {
			w.o.Live.Leave(op.member) // completed, or the connection ended, while resuming
			return
		}
		if errs != nil && w.remove(op.id) == op {
			w.refuse(op.id, errs)
		}
	}()
}

// errGone ends a replay whose operation or connection has ended.
var errGone = errors.New("the operation has ended")

// deliver queues a shared payload for op, unless op has ended meanwhile,
// and wakes the writer if asked (else the caller does, see live.Member).
func (w *wsConn) deliver(op *wsOp, body []byte, wake bool) {
	if op.gone.Load() || !w.out.enqueue(wsFrame{head: op.head, body: body, tail: true}) {
		return
	}
	w.o.Live.Emit(eventschema.ChannelGraphQLWS, op.event, body)
	if wake {
		w.out.signal()
	}
}

func (w *wsConn) next(op *wsOp, resp *graphql.Response) {
	b, err := operation.EncodeResponse(resp)
	if err != nil {
		return
	}
	w.out.send(wsFrame{head: op.head, body: b, tail: true})
}

// head is the start of an event message of operation id.
func (w *wsConn) head(id string) []byte {
	typ := "next"
	if w.legacy {
		typ = "data"
	}
	quoted, _ := json.Marshal(id)
	return []byte(`{"id":` + string(quoted) + `,"type":"` + typ + `","payload":`)
}

// stop ends operation id at the client's request.
func (w *wsConn) stop(id string) {
	op := w.remove(id)
	if op == nil {
		return
	}
	if op.cancel != nil {
		op.cancel()
	}
	if op.member != nil {
		w.o.Live.Leave(op.member)
	}
}

// add counts op among the connection's operations (and its queue bound).
func (w *wsConn) add(op *wsOp) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ops[op.id] = op
	w.out.operations.Store(int64(len(w.ops)))
}

func (w *wsConn) remove(id string) *wsOp {
	w.mu.Lock()
	defer w.mu.Unlock()
	op := w.ops[id]
	delete(w.ops, id)
	w.out.operations.Store(int64(len(w.ops)))
	if op != nil {
		op.gone.Store(true)
		op.endSpan()
	}
	return op
}

// leaveAll ends every operation when the connection ends.
func (w *wsConn) leaveAll() {
	w.mu.Lock()
	ops := w.ops
	w.ops = map[string]*wsOp{}
	w.out.operations.Store(0)
	w.mu.Unlock()
	for _, op := range ops {
		op.gone.Store(true)
		op.endSpan()
		if op.member != nil {
			w.o.Live.Leave(op.member)
		}
	}
}

// refuse ends operation id with errors: graphql-transport-ws's error
// message; graphql-ws's data with errors, then complete.
func (w *wsConn) refuse(id string, errs gqlerror.List) {
	if !w.legacy {
		w.out.sendJSON(map[string]any{"type": "error", "id": id, "payload": errs})
		return
	}
	w.out.sendJSON(map[string]any{"type": "data", "id": id, "payload": map[string]any{"errors": errs}})
	w.complete(id)
}

func (w *wsConn) complete(id string) {
	w.out.sendJSON(map[string]any{"type": "complete", "id": id})
}

// domainErr presents a domain error (a rate-limit refusal) as a GraphQL one.
func domainErr(err error) *gqlerror.Error {
	var de *domain.Error
	if errors.As(domain.Classify(err), &de) {
		return operation.CodedError(de.Code, de.Message)
	}
	return operation.CodedError(domain.CodeInternal, "internal error")
}
