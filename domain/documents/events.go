package documents

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// LoadEvent is the load.changed (<uuid>-0) of a document added to a
// load or to one of its trips: data.load is the load after the upload, the
// diff names domain.FieldDocuments and, as the snapshot does not carry the
// documents, has no previousAttributes.
func LoadEvent(id uuid.UUID, now time.Time, tenant uuid.UUID, after *domain.Load) domain.Event {
	return domain.Event{
		ID: id.String() + "-0", Type: domain.EventLoadChanged, Timestamp: now,
		TenantID: tenant, SubsidiaryID: after.SubsidiaryID, SubjectID: after.ID,
		Data: domain.EventData{Load: after, Diff: &domain.Diff{
			Changes:            []domain.Change{domain.FieldDocuments.Change()},
			PreviousAttributes: map[string]json.RawMessage{},
		}},
	}
}
