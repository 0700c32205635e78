package generated

// Hand-written (not generated): graph/gqlgenrun points the generated code
// here — the marshal functions of lists that need no goroutine per element,
// and the query's response buffer.

import (
	"bytes"
	"context"
	"hash/maphash"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
)

// marshalSliceSequentially is graphql.MarshalSliceConcurrently without a
// goroutine per element: the same per-element field context (the index in
// the error path) and panic handling, elements marshalled in order.
func marshalSliceSequentially(ctx context.Context, length int, _ int64, omitPanicHandler bool,
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

// marshalSliceUnlessWaiting marshals a list of elem objects in order when
// the selection under its elements reaches none of the resolver fields
// (nothing can wait on a dataloader batch while the others wait), and
// concurrently, as gqlgen does, when it does.
func marshalSliceUnlessWaiting(ctx context.Context, sel ast.SelectionSet, elem string, length int, workerLimit int64, omitPanicHandler bool,
	marshalElement func(ctx context.Context, i int) graphql.Marshaler,
) graphql.Array {
	if length > 1 && selectsResolver(sel, elem) {
		return graphql.MarshalSliceConcurrently(ctx, length, workerLimit, omitPanicHandler, marshalElement)
	}
	return marshalSliceSequentially(ctx, length, workerLimit, omitPanicHandler, marshalElement)
}

// selectsResolver reports whether sel, selected on an object of type typ,
// reaches a field with a resolver at any depth. What it cannot judge — an
// interface or union, a fragment on another type, a field without its
// definition — counts as reaching one.
func selectsResolver(sel ast.SelectionSet, typ string) bool {
	resolvers, known := resolverFields[typ]
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
			if s.Definition == nil || selectsResolver(s.SelectionSet, s.Definition.Type.Name()) {
				return true
			}
		case *ast.InlineFragment:
			if (s.TypeCondition != "" && s.TypeCondition != typ) || selectsResolver(s.SelectionSet, typ) {
				return true
			}
		case *ast.FragmentSpread:
			if s.Definition == nil || s.Definition.TypeCondition != typ || selectsResolver(s.Definition.SelectionSet, typ) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// responseBuffer is the buffer a query's data is written into, sized by
// what the same operation text wrote last time (a lossy table of 1,024
// hints, each at most 1 MiB): gqlgen's empty buffer grows by doubling,
// which for a dashboard page (~100 KB) allocated and copied twice its size.
func responseBuffer(rawQuery string) *bytes.Buffer {
	n := responseSizeHints[responseHintSlot(rawQuery)].Load()
	return bytes.NewBuffer(make([]byte, 0, n))
}

// rememberResponseSize records the size of a query's data for the next
// buffer of the same operation text.
func rememberResponseSize(rawQuery string, n int) {
	responseSizeHints[responseHintSlot(rawQuery)].Store(int32(min(n+n/8, 1<<20)))
}

var (
	responseSizeHints [1024]atomic.Int32
	responseHintSeed  = maphash.MakeSeed()
)

func responseHintSlot(rawQuery string) int {
	return int(maphash.String(responseHintSeed, rawQuery) % uint64(len(responseSizeHints)))
}
