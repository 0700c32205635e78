// Package execrt is the runtime the execution code in graph/generated calls
// where graph/gqlgenrun's templates differ from gqlgen's: lists marshalled
// without a goroutine per element, objects written without
// graphql.FieldSet, and the query response buffer sized by the last
// response. It imports nothing of the project.
package execrt

import (
	"bytes"
	"context"
	"hash/maphash"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// MarshalSliceSequentially is graphql.MarshalSliceConcurrently without a
// goroutine per element: the same per-element field context (the index in
// the error path) and panic handling, elements marshalled in order.
func MarshalSliceSequentially(ctx context.Context, length int, _ int64, omitPanicHandler bool,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler,
) graphql.Array {
	ret := make(graphql.Array, length)
	for i := range length {
		fc := &graphql.FieldContext{Index: &i}
		childCtx := graphql.WithFieldContext(ctx, fc)
		if omitPanicHandler {
			ret[i] = marshalElement(childCtx, i)
			continue
		}
		panicked := false
		func() {
			defer func() {
				if r := recover(); r != nil {
					graphql.AddError(childCtx, graphql.Recover(childCtx, r))
					panicked = true
				}
			}()
			ret[i] = marshalElement(childCtx, i)
		}()
		if panicked {
			return nil
		}
	}
	return ret
}

// ResolverFields holds, for every object of a schema, the fields that have
// a resolver (may wait: a dataloader, a query); gqlgenrun generates it.
type ResolverFields map[string]map[string]bool

// MarshalSliceUnlessWaiting marshals a list of elem objects in order when
// the selection under its elements reaches none of the resolver fields
// (nothing can wait on a dataloader batch while the others wait), and
// concurrently, as gqlgen does, when it does.
func (r ResolverFields) MarshalSliceUnlessWaiting(ctx context.Context, sel ast.SelectionSet, elem string, length int, workerLimit int64, omitPanicHandler bool,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler,
) graphql.Array {
	if length > 1 && r.SelectsResolver(sel, elem) {
		return graphql.MarshalSliceConcurrently(ctx, length, workerLimit, omitPanicHandler, marshalElement)
	}
	return MarshalSliceSequentially(ctx, length, workerLimit, omitPanicHandler, marshalElement)
}

// SelectsResolver reports whether sel, selected on an object of type typ,
// reaches a field with a resolver at any depth. What it cannot judge — an
// interface or union, a fragment on another type, a field without its
// definition — counts as reaching one.
func (r ResolverFields) SelectsResolver(sel ast.SelectionSet, typ string) bool {
	resolvers, known := r[typ]
	if !known {
		return len(sel) > 0
	}
	for _, s := range sel {
		switch s := s.(type) {
		case *ast.Field:
			if resolvers[s.Name] {
				return true
			}
			if len(s.SelectionSet) == 0 {
				continue
			}
			if s.Definition == nil || r.SelectsResolver(s.SelectionSet, s.Definition.Type.Name()) {
				return true
			}
		case *ast.InlineFragment:
			if (s.TypeCondition != "" && s.TypeCondition != typ) || r.SelectsResolver(s.SelectionSet, typ) {
				return true
			}
		case *ast.FragmentSpread:
			if s.Definition == nil || s.Definition.TypeCondition != typ || r.SelectsResolver(s.Definition.SelectionSet, typ) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// ResponseSize is the size hint of one operation text, looked up once per
// query (ResponseSizeOf): a query's data is written into a buffer of the
// size the same text needed last time (a lossy table of 1,024 hints, each
// at most 1 MiB), since gqlgen's empty buffer grows by doubling, which for
// a dashboard page (~100 KB) allocated and copied twice its size.
type ResponseSize struct{ n atomic.Int32 }

// ResponseSizeOf is the hint of rawQuery's text.
func ResponseSizeOf(rawQuery string) *ResponseSize {
	return &responseSizes[maphash.String(responseSizeSeed, rawQuery)%uint64(len(responseSizes))]
}

// Buffer is an empty buffer of the hinted size.
func (h *ResponseSize) Buffer() *bytes.Buffer {
	return bytes.NewBuffer(make([]byte, 0, h.n.Load()))
}

// Remember records the size of this response's data for the next one.
func (h *ResponseSize) Remember(n int) { h.n.Store(int32(min(n+n/8, 1<<20))) }

// The hints are process-wide on purpose: a hint is only a starting
// capacity, whatever it holds changes no response.
var (
	responseSizes    [1024]ResponseSize
	responseSizeSeed = maphash.MakeSeed()
)
