package domain

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
)

// Change kinds of docs/api-contract.md §6.4's data.diff.changes.
const (
	ChangeStatus = "StatusChanged"
	ChangeRate   = "RateChanged"
	ChangeField  = "FieldChanged"
)

// ChangeTarget names the field of a FieldChanged change.
type ChangeTarget struct {
	Type string `json:"type"` // always "Field"
	ID   string `json:"id"`   // the field's JSON name
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

// loadDiffFields are the load fields a diff compares, in snapshot order.
// UpdatedAt changes with every write and says nothing by itself; Id and
// CreatedAt never change.
var loadDiffFields = []string{"LoadNumber", "Status", "BillingStatus", "SubsidiaryId", "SubsidiaryName", "CustomerId",
	"OrderNumber", "PONumber", "Source", "Rate", "Weight", "Commodity", "EquipmentType", "Stops", "Trips"}

var tripDiffFields = []string{"TripNumber", "Status", "DriverIds", "TruckId", "TrailerId", "CarrierId"}

// LoadDiffFields are the load fields a diff may name (the event schemas
// list them); TripDiffFields the trip's.
func LoadDiffFields() []string { return slices.Clone(loadDiffFields) }

// TripDiffFields: see LoadDiffFields.
func TripDiffFields() []string { return slices.Clone(tripDiffFields) }

// DiffLoads compares two snapshots of one load (docs/api-contract.md §6.4).
func DiffLoads(before, after *Load) (*Diff, error) {
	return diffJSON(before, after, loadDiffFields)
}

// DiffTrips compares two snapshots of one trip.
func DiffTrips(before, after *Trip) (*Diff, error) {
	return diffJSON(before, after, tripDiffFields)
}

// diffJSON compares the JSON renderings field by field: what changed is what a
// consumer of the snapshot would see change.
func diffJSON(before, after any, fields []string) (*Diff, error) {
	b, err := fieldsOf(before)
	if err != nil {
		return nil, err
	}
	a, err := fieldsOf(after)
	if err != nil {
		return nil, err
	}
	d := &Diff{Changes: []Change{}, PreviousAttributes: map[string]json.RawMessage{}}
	for _, f := range fields {
		if bytes.Equal(b[f], a[f]) {
			continue
		}
		switch f {
		case "Status":
			d.Changes = append(d.Changes, Change{Kind: ChangeStatus})
		case "Rate":
			d.Changes = append(d.Changes, Change{Kind: ChangeRate})
		default:
			d.Changes = append(d.Changes, Change{Kind: ChangeField, Target: &ChangeTarget{Type: "Field", ID: f}})
		}
		prev := b[f]
		if prev == nil {
			prev = json.RawMessage("null")
		}
		d.PreviousAttributes[f] = prev
	}
	return d, nil
}

func fieldsOf(v any) (map[string]json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	err = json.Unmarshal(raw, &m)
	return m, err
}

// LoadEvents builds the events of one load write (docs/events-api.md, "Events"):
// load.changed (<uuid>-0) always, without diff on creation (before == nil),
// plus load.status.changed (<uuid>-1), load only, when the status changed.
// A write that changed nothing emits nothing.
func LoadEvents(id uuid.UUID, now time.Time, tenant uuid.UUID, before, after *Load) ([]Event, error) {
	base := Event{Timestamp: now, TenantID: tenant, SubsidiaryID: after.SubsidiaryID, SubjectID: after.ID}
	changed := base
	changed.ID, changed.Type = id.String()+"-0", EventLoadChanged
	changed.Data = EventData{Load: after}
	if before == nil {
		return []Event{changed}, nil
	}
	diff, err := DiffLoads(before, after)
	if err != nil {
		return nil, err
	}
	if len(diff.Changes) == 0 {
		return nil, nil
	}
	changed.Data.Diff = diff
	out := []Event{changed}
	if before.Status != after.Status {
		status := base
		status.ID, status.Type = id.String()+"-1", EventLoadStatusChanged
		status.Data = EventData{Load: after}
		out = append(out, status)
	}
	return out, nil
}

// TripEvents builds the trip.changed event (<uuid>-0) of one trip write; its
// data carries the trip, the load it belongs to (after the write) and the diff.
func TripEvents(id uuid.UUID, now time.Time, tenant uuid.UUID, before, after *Trip, load *Load) ([]Event, error) {
	diff, err := DiffTrips(before, after)
	if err != nil {
		return nil, err
	}
	if len(diff.Changes) == 0 {
		return nil, nil
	}
	return []Event{{ID: id.String() + "-0", Type: EventTripChanged, Timestamp: now, TenantID: tenant,
		SubsidiaryID: load.SubsidiaryID, SubjectID: after.ID, Data: EventData{Load: load, Trip: after, Diff: diff}}}, nil
}
