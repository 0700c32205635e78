package resolvers

import (
	"context"

	"github.com/99designs/gqlgen/graphql"
	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/loaders"
	"github.com/haulgraph/haulgraph/graph/model"
)

// uploadDocument runs one GraphQL upload through the domain's one set of
// upload rules.
func (r *Resolver) uploadDocument(ctx context.Context, t domain.DocumentParentType, parentID, documentType string, file graphql.Upload, fileName *string) (*model.Document, error) {
	d, err := r.Documents.UploadFile(ctx, t, parentID, documentType, fileName, file.Filename, file.File)
	if err != nil {
		return nil, err
	}
	p, err := domain.Authenticated(ctx)
	if err != nil {
		return nil, err
	}
	return r.documentModel(p, d), nil
}

// documentModel is the GraphQL face of a document, with its signed link.
func (r *Resolver) documentModel(p *domain.Principal, d domain.Document) *model.Document {
	return &model.Document{
		ID:             d.ID.String(),
		AttachmentPath: d.AttachmentPath,
		AttachmentType: d.AttachmentType,
		AttachmentSize: int(d.AttachmentSize),
		UploadedAt:     d.UploadedAt.UTC(),
		ParentID:       d.ParentID,
		ParentType:     string(d.ParentType),
		ContentType:    d.ContentType,
		DownloadURL:    r.Documents.DownloadURL(p.TenantID, d),
	}
}

// documentsOf resolves a parent's documents field: through the response's
// loaders (loaders.Extension), else one query of its own.
func (r *Resolver) documentsOf(ctx context.Context, t domain.DocumentParentType, id uuid.UUID) ([]*model.Document, error) {
	p, err := domain.Authenticated(ctx)
	if err != nil {
		return nil, err
	}
	docs, ok, err := loaders.Documents(ctx, t, id)
	if !ok {
		var m map[uuid.UUID][]domain.Document
		m, err = r.Documents.DocumentsOf(ctx, t, []uuid.UUID{id}, loaders.DocumentsPerParent)
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
