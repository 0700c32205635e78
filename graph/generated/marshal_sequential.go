package generated

// Hand-written (not generated): graph/gqlgenrun points the marshal functions
// of lists whose elements have no resolver fields here.

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
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
