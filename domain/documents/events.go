package documents

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// DocumentsField is the field a document upload's load.changed names: the
// load snapshot does not carry its documents, so the diff has no previous
// value for it.
const DocumentsField = "Documents"

// LoadEvent is the load.changed (<uuid>-0) of a document added to a
// load or to one of its trips: data.load is the load after the upload.
func LoadEvent(id uuid.UUID, now time.Time, tenant uuid.UUID, after *domain.Load) domain.Event {
	return domain.Event{
		ID: id.String() + "-0", Type: domain.EventLoadChanged, Timestamp: now,
		TenantID: tenant, SubsidiaryID: after.SubsidiaryID, SubjectID: after.ID,
		Data: domain.EventData{Load: after, Diff: &domain.Diff{
			Changes:            []domain.Change{{Kind: domain.ChangeField, Target: &domain.ChangeTarget{Type: "Field", ID: DocumentsField}}},
			PreviousAttributes: map[string]json.RawMessage{},
		}},
	}
}
