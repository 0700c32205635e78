package storage

import (
	"context"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
)

// LoadChangedFunc records that a load changed, inside the transaction of the
// change (the events outbox). Nil until the event bus is wired.
type LoadChangedFunc func(ctx context.Context, tx *Tx, loadID uuid.UUID) error

// Documents is the documents.Store on PostgreSQL.
type Documents struct {
	DB *DB
	// LoadChanged, when set, runs in the insert's transaction for load and
	// trip documents: a document upload changes its load.
	LoadChanged LoadChangedFunc
}

var _ documents.Store = (*Documents)(nil)

func parentNotFound(t domain.DocumentParentType, id string) error {
	if t == domain.ParentLoad {
		// docs/api-contract.md §4.7: a load without trips is treated as nonexistent.
		return domain.NotFound("load %q was not found, or it has no trips yet (documents attach to loads with at least one trip)", id)
	}
	return domain.NotFound("%s %q was not found", lower(t), id)
}

func lower(t domain.DocumentParentType) string {
	switch t {
	case domain.ParentLoad:
		return "load"
	case domain.ParentTrip:
		return "trip"
	case domain.ParentDriver:
		return "driver"
	}
	return "carrier"
}

// DocumentParent resolves the parent within the tenant.
func (s *Documents) DocumentParent(ctx context.Context, tenantID uuid.UUID, t domain.DocumentParentType, publicID string) (documents.Parent, error) {
	p := documents.Parent{Type: t}
	if t != domain.ParentLoad {
		id, err := uuid.Parse(publicID)
		if err != nil {
			return p, parentNotFound(t, publicID)
		}
		p.UUID, p.PublicID = id, id.String()
	}
	found := false
	err := s.DB.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		scan := func(dest any) func(pgx.Rows) error {
			return func(r pgx.Rows) error { found = true; return r.Scan(dest) }
		}
		switch t {
		case domain.ParentLoad:
			p.PublicID = publicID
			tx.query(`
				SELECT l.id FROM loads l
				WHERE l.tenant_id = $1 AND l.load_number = $2
				  AND EXISTS (SELECT 1 FROM trips t WHERE t.tenant_id = l.tenant_id AND t.load_id = l.id)`,
				scan(&p.UUID), tenantID, publicID)
		case domain.ParentTrip:
			var loadID uuid.UUID
			p.LoadID = &loadID
			tx.query(`SELECT load_id FROM trips WHERE tenant_id = $1 AND id = $2`, scan(&loadID), tenantID, p.UUID)
		case domain.ParentDriver:
			tx.query(`SELECT id FROM drivers WHERE tenant_id = $1 AND id = $2`, scan(&p.UUID), tenantID, p.UUID)
		default:
			tx.query(`SELECT id FROM carriers WHERE tenant_id = $1 AND id = $2`, scan(&p.UUID), tenantID, p.UUID)
		}
		return nil
	})
	if err == nil && !found {
		return p, parentNotFound(t, publicID)
	}
	if t == domain.ParentLoad {
		p.LoadID = &p.UUID
	}
	return p, err
}

// InsertDocument records d and, for load and trip documents, the load's change.
func (s *Documents) InsertDocument(ctx context.Context, tenantID uuid.UUID, p documents.Parent, d domain.Document) error {
	return s.DB.inTenantTx(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		if p.LoadID != nil && s.LoadChanged != nil {
			// The load's row lock comes before the first write: the outbox
			// orders events by transaction id (storage.Outbox).
			tx.exec("SELECT 1 FROM loads WHERE tenant_id = $1 AND id = $2 FOR UPDATE", tenantID, *p.LoadID)
		}
		// One upload at a time per parent counts its documents: the bound
		// holds against concurrent uploads too. A parent already full
		// inserts nothing, and the refusal rolls the transaction back.
		tx.exec("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", "documents:"+tenantID.String()+":"+p.UUID.String())
		tx.exec(`INSERT INTO documents (id, tenant_id, parent_type, parent_id, parent_uuid, attachment_path,
			attachment_type, attachment_size, content_type, blob_key, uploaded_at)
			SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11
			WHERE (SELECT count(*) FROM documents WHERE tenant_id = $2 AND parent_type = $3 AND parent_uuid = $5) < $12`,
			d.ID, tenantID, string(p.Type), p.PublicID, p.UUID, d.AttachmentPath,
			d.AttachmentType, d.AttachmentSize, d.ContentType, d.BlobKey, d.UploadedAt, documents.MaxPerParent).Exec(func(ct pgconn.CommandTag) error {
			if ct.RowsAffected() == 0 {
				return domain.ListFull("documents", "a "+strings.ToLower(string(p.Type)), documents.MaxPerParent)
			}
			return nil
		})
		if p.LoadID != nil && s.LoadChanged != nil {
			return s.LoadChanged(ctx, tx, *p.LoadID)
		}
		return nil
	})
}

const documentColumns = `id, parent_type, parent_id, parent_uuid, attachment_path, attachment_type,
	attachment_size, content_type, blob_key, uploaded_at`

// documentRow is a row of documentColumns, read by name.
type documentRow struct {
	domain.Document
	ParentUUID uuid.UUID `db:"parent_uuid"`
}

func scanDocument(r pgx.Rows) (domain.Document, uuid.UUID, error) {
	row, err := pgx.RowToStructByName[documentRow](r)
	row.UploadedAt = row.UploadedAt.UTC()
	return row.Document, row.ParentUUID, err
}

// Document reads one document of the tenant.
func (s *Documents) Document(ctx context.Context, tenantID, id uuid.UUID) (domain.Document, error) {
	var d domain.Document
	found := false
	err := s.DB.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query(`SELECT `+documentColumns+` FROM documents WHERE tenant_id = $1 AND id = $2`, func(r pgx.Rows) error {
			var err error
			found = true
			d, _, err = scanDocument(r)
			return err
		}, tenantID, id)
		return nil
	})
	if err == nil && !found {
		return d, domain.NotFound("document %s was not found", id)
	}
	return d, err
}

// DocumentsOf reads, in one query, the newest documents (at most limit per
// parent) of many parents of one type.
func (s *Documents) DocumentsOf(ctx context.Context, tenantID uuid.UUID, t domain.DocumentParentType, parents []uuid.UUID, limit int) (map[uuid.UUID][]domain.Document, error) {
	out := make(map[uuid.UUID][]domain.Document, len(parents))
	if len(parents) == 0 {
		return out, nil
	}
	err := s.DB.readTenant(ctx, tenantID, func(ctx context.Context, tx *Tx) error {
		tx.query(`
			SELECT `+documentColumns+` FROM (
				SELECT *, row_number() OVER (PARTITION BY parent_uuid ORDER BY uploaded_at DESC, id) AS n
				FROM documents WHERE tenant_id = $1 AND parent_type = $2 AND parent_uuid = ANY($3)
			) d WHERE n <= $4 ORDER BY parent_uuid, uploaded_at DESC, id`, func(r pgx.Rows) error {
			d, parent, err := scanDocument(r)
			out[parent] = append(out[parent], d)
			return err
		}, tenantID, string(t), parents, limit)
		return nil
	})
	return out, err
}
