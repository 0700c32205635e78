package domain

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// DocumentsField is the field a document upload's load.changed names: the
// load snapshot does not carry its documents, so the diff has no previous
// value for it.
const DocumentsField = "Documents"

// DocumentLoadEvent is the load.changed (<uuid>-0) of a document added to a
// load or to one of its trips: data.load is the load after the upload.
func DocumentLoadEvent(id uuid.UUID, now time.Time, tenant uuid.UUID, after *Load) Event {
	return Event{
		ID: id.String() + "-0", Type: EventLoadChanged, Timestamp: now,
		TenantID: tenant, SubsidiaryID: after.SubsidiaryID, SubjectID: after.ID,
		Data: EventData{Load: after, Diff: &Diff{
			Changes:            []Change{{Kind: ChangeField, Target: &ChangeTarget{Type: "Field", ID: DocumentsField}}},
			PreviousAttributes: map[string]json.RawMessage{},
		}},
	}
}
