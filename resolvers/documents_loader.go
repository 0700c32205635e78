package resolvers

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/vikstrous/dataloadgen"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/graph/loaders"
	"github.com/haulgraph/haulgraph/graph/model"
)

// documentsPerParent bounds the documents field of a load, trip, driver or
// carrier.
const documentsPerParent = 50

type docLoadersKey struct{}

// docLoaders batch the documents fields of one operation: one query per
// parent type and level, not one per parent.
type docLoaders map[domain.DocumentParentType]*dataloadgen.Loader[uuid.UUID, []domain.Document]

// WithDocumentLoaders gives an operation its document loaders (the graph
// server calls it around every operation).
func WithDocumentLoaders(ctx context.Context, docs *documents.Service) context.Context {
	l := docLoaders{}
	for t := range documents.Targets {
		l[t] = dataloadgen.NewMappedLoader(func(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID][]domain.Document, error) {
			return docs.DocumentsOf(ctx, t, ids, documentsPerParent)
		}, dataloadgen.WithBatchCapacity(loaders.MaxBatch), dataloadgen.WithWait(loaders.BatchWait))
	}
	return context.WithValue(ctx, docLoadersKey{}, l)
}

// documentsOf resolves a parent's documents field.
func (r *Resolver) documentsOf(ctx context.Context, t domain.DocumentParentType, id uuid.UUID) ([]*model.Document, error) {
	p, err := domain.Authenticated(ctx)
	if err != nil {
		return nil, err
	}
	var docs []domain.Document
	if l, ok := ctx.Value(docLoadersKey{}).(docLoaders); ok {
		docs, err = l[t].Load(ctx, id)
		if errors.Is(err, dataloadgen.ErrNotFound) {
			err = nil
		}
	} else {
		var m map[uuid.UUID][]domain.Document
		m, err = r.Documents.DocumentsOf(ctx, t, []uuid.UUID{id}, documentsPerParent)
		docs = m[id]
	}
	if err != nil {
		return nil, err
	}
	out := make([]*model.Document, len(docs))
	for i, d := range docs {
		out[i] = r.documentModel(p, d)
	}
	return out, nil
}
