package domain

import (
	"encoding/json"
	"time"

	"github.com/google/uuid"
)

// Change kinds of docs/api-contract.md §6.4's data.diff.changes.
const (
	ChangeStatus = "StatusChanged"
	ChangeRate   = "RateChanged"
	ChangeField  = "FieldChanged"
)

// ChangeTarget names the field of a FieldChanged change; build it with
// Field.Change.
type ChangeTarget struct {
	Type string `json:"type"` // always ChangeTargetField
	ID   Field  `json:"id"`   // the field's JSON name
}

// Change is one entry of data.diff.changes.
type Change struct {
	Kind   string        `json:"kind"`
	Target *ChangeTarget `json:"target,omitempty"`
}

// Diff is docs/api-contract.md §6.4's data.diff. PreviousAttributes is always computed and
// stored; each consumer drops it unless it asked for it.
type Diff struct {
	Changes            []Change                   `json:"changes"`
	PreviousAttributes map[string]json.RawMessage `json:"previousAttributes,omitempty"`
}

// EventData is an envelope's data: the load snapshot, for trip.changed also
// the trip, and the diff (absent on creation and on load.status.changed).
type EventData struct {
	Load *Load `json:"load"`
	Trip *Trip `json:"trip,omitempty"`
	Diff *Diff `json:"diff,omitempty"`
}

// Event is one outbox entry: the envelope of docs/api-contract.md §6.3 plus what routing needs.
type Event struct {
	ID           string
	Type         string
	Timestamp    time.Time
	TenantID     uuid.UUID
	SubsidiaryID uuid.UUID
	SubjectID    uuid.UUID
	Data         EventData
}

// Envelope is docs/api-contract.md §6.3's wire shape.
type Envelope struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Version   string          `json:"version"`
	Data      json.RawMessage `json:"data"`
}

// EventTimeLayout renders ISO 8601 with an explicit numeric offset (+00:00).
const EventTimeLayout = "2006-01-02T15:04:05.000000-07:00"

// MarshalEnvelope renders e as docs/api-contract.md §6.3's envelope.
func (e Event) MarshalEnvelope() ([]byte, error) {
	data, err := json.Marshal(e.Data)
	if err != nil {
		return nil, err
	}
	return json.Marshal(Envelope{ID: e.ID, Type: e.Type, Timestamp: e.Timestamp.UTC().Format(EventTimeLayout),
		Version: EventPayloadVersion, Data: data})
}

// StripPreviousAttributes returns the envelope without
// data.diff.previousAttributes: what a consumer that did not ask for them gets.
func StripPreviousAttributes(envelope []byte) ([]byte, error) {
	var env map[string]json.RawMessage
	if err := json.Unmarshal(envelope, &env); err != nil {
		return nil, err
	}
	rawData, ok := env["data"]
	if !ok {
		return envelope, nil
	}
	var data map[string]json.RawMessage
	if err := json.Unmarshal(rawData, &data); err != nil {
		return nil, err
	}
	rawDiff, ok := data["diff"]
	if !ok {
		return envelope, nil
	}
	var diff map[string]json.RawMessage
	if err := json.Unmarshal(rawDiff, &diff); err != nil {
		return nil, err
	}
	if _, ok := diff["previousAttributes"]; !ok {
		return envelope, nil
	}
	delete(diff, "previousAttributes")
	var err error
	if data["diff"], err = json.Marshal(diff); err != nil {
		return nil, err
	}
	if env["data"], err = json.Marshal(data); err != nil {
		return nil, err
	}
	return json.Marshal(env)
}
