// Package loaders holds the per-request dataloaders behind GraphQL relation
// fields (trip → drivers/trailer/carrier, stop → location, invoice → load):
// the keys asked for while resolving one level are fetched with one query.
package loaders

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/vikstrous/dataloadgen"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// Source is the storage side of the loaders (storage.Reads implements it).
// Every method is tenant-scoped: ids of another tenant are absent.
type Source interface {
	DriversByIDs(ctx context.Context, tenant uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Driver, error)
	TrailersByIDs(ctx context.Context, tenant uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]reads.Trailer, error)
	CarriersByIDs(ctx context.Context, tenant uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Carrier, error)
	LocationsByIDs(ctx context.Context, tenant uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]reads.Location, error)
	LoadsByIDs(ctx context.Context, tenant uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]domain.Load, error)
}

// Loaders are one request's dataloaders, bound to the caller's tenant.
type Loaders struct {
	Drivers   *dataloadgen.Loader[uuid.UUID, domain.Driver]
	Trailers  *dataloadgen.Loader[uuid.UUID, reads.Trailer]
	Carriers  *dataloadgen.Loader[uuid.UUID, domain.Carrier]
	Locations *dataloadgen.Loader[uuid.UUID, reads.Location]
	Loads     *dataloadgen.Loader[uuid.UUID, domain.Load]
}

// MaxBatch bounds the id list of one batch query.
const MaxBatch = 500

// BatchWait is how long a loader collects keys before it queries: the
// sibling resolvers of one list level run concurrently and register their
// keys within it. Every loader of the graph uses it.
const BatchWait = 2 * time.Millisecond

// New makes the loaders of one request for tenant.
func New(src Source, tenant uuid.UUID) *Loaders {
	return &Loaders{
		Drivers:   loader(tenant, src.DriversByIDs),
		Trailers:  loader(tenant, src.TrailersByIDs),
		Carriers:  loader(tenant, src.CarriersByIDs),
		Locations: loader(tenant, src.LocationsByIDs),
		Loads:     loader(tenant, src.LoadsByIDs),
	}
}

func loader[V any](tenant uuid.UUID, fetch func(context.Context, uuid.UUID, []uuid.UUID) (map[uuid.UUID]V, error)) *dataloadgen.Loader[uuid.UUID, V] {
	return dataloadgen.NewMappedLoader(func(ctx context.Context, keys []uuid.UUID) (map[uuid.UUID]V, error) {
		return fetch(ctx, tenant, keys)
	}, dataloadgen.WithBatchCapacity(MaxBatch), dataloadgen.WithWait(BatchWait))
}

type ctxKey struct{}

// With stores l in ctx.
func With(ctx context.Context, l *Loaders) context.Context {
	return context.WithValue(ctx, ctxKey{}, l)
}

// From returns the response's loaders, or an error when none were
// installed (a server assembled without app.NewGraphQL).
func From(ctx context.Context) (*Loaders, error) {
	l, _ := ctx.Value(ctxKey{}).(*Loaders)
	if l == nil {
		return nil, errors.New("loaders: none in context")
	}
	return l, nil
}

// One loads id, answering nil (not an error) for a missing row.
func One[V any](ctx context.Context, l *dataloadgen.Loader[uuid.UUID, V], id *uuid.UUID) (*V, error) {
	if id == nil || *id == uuid.Nil {
		return nil, nil
	}
	v, err := l.Load(ctx, *id)
	if errors.Is(err, dataloadgen.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// Many loads ids in order, skipping missing rows.
func Many[V any](ctx context.Context, l *dataloadgen.Loader[uuid.UUID, V], ids []uuid.UUID) ([]*V, error) {
	thunks := make([]func() (V, error), len(ids))
	for i, id := range ids {
		thunks[i] = l.LoadThunk(ctx, id)
	}
	out := make([]*V, 0, len(ids))
	for _, th := range thunks {
		v, err := th()
		if errors.Is(err, dataloadgen.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, &v)
	}
	return out, nil
}
