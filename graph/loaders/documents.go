package loaders

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/vikstrous/dataloadgen"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
)

// DocumentsPerParent bounds the documents field of a load, trip, driver or
// carrier: all of them (documents.MaxPerParent).
const DocumentsPerParent = documents.MaxPerParent

// DocumentSource is what the document loaders read (documents.Service).
type DocumentSource interface {
	DocumentsOf(ctx context.Context, t domain.DocumentParentType, ids []uuid.UUID, limit int) (map[uuid.UUID][]domain.Document, error)
}

type docsKey struct{}

// docLoaders batch the documents fields of one response: one query per
// parent type and level, not one per parent.
type docLoaders map[domain.DocumentParentType]*dataloadgen.Loader[uuid.UUID, []domain.Document]

// WithDocuments gives a response its document loaders over docs.
func WithDocuments(ctx context.Context, docs DocumentSource) context.Context {
	l := docLoaders{}
	for t := range documents.Targets {
		l[t] = dataloadgen.NewMappedLoader(func(ctx context.Context, ids []uuid.UUID) (map[uuid.UUID][]domain.Document, error) {
			return docs.DocumentsOf(ctx, t, ids, DocumentsPerParent)
		}, dataloadgen.WithBatchCapacity(MaxBatch), dataloadgen.WithWait(BatchWait))
	}
	return context.WithValue(ctx, docsKey{}, l)
}

// Documents loads the documents of the parent id of type t; ok is false
// when the response has no document loaders (WithDocuments).
func Documents(ctx context.Context, t domain.DocumentParentType, id uuid.UUID) (docs []domain.Document, ok bool, err error) {
	l, ok := ctx.Value(docsKey{}).(docLoaders)
	if !ok {
		return nil, false, nil
	}
	docs, err = l[t].Load(ctx, id)
	if errors.Is(err, dataloadgen.ErrNotFound) {
		err = nil
	}
	return docs, true, err
}
