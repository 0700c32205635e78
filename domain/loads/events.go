package loads

import (
	"bytes"
	"encoding/json"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// loadDiffFields are the load fields a diff compares, in snapshot order.
// UpdatedAt changes with every write and says nothing by itself; Id and
// CreatedAt never change.
var loadDiffFields = []domain.Field{domain.FieldLoadNumber, domain.FieldStatus, domain.FieldBillingStatus,
	domain.FieldSubsidiaryID, domain.FieldSubsidiaryName, domain.FieldCustomerID, domain.FieldCustomerName,
	domain.FieldOrderNumber, domain.FieldPONumber, domain.FieldSource, domain.FieldRate, domain.FieldWeight,
	domain.FieldCommodity, domain.FieldEquipmentType, domain.FieldStops, domain.FieldTrips}

var tripDiffFields = []domain.Field{domain.FieldTripNumber, domain.FieldStatus, domain.FieldDriverIDs,
	domain.FieldTruckID, domain.FieldTrailerID, domain.FieldCarrierID}

// LoadDiffFields are the load fields a diff may name (the event schemas
// list them as previousAttributes); TripDiffFields the trip's.
func LoadDiffFields() []domain.Field { return slices.Clone(loadDiffFields) }

// TripDiffFields: see LoadDiffFields.
func TripDiffFields() []domain.Field { return slices.Clone(tripDiffFields) }

// DiffLoads compares two snapshots of one load (docs/api-contract.md §6.4).
func DiffLoads(before, after *domain.Load) (*domain.Diff, error) {
	return diffJSON(before, after, loadDiffFields)
}

// DiffTrips compares two snapshots of one trip.
func DiffTrips(before, after *domain.Trip) (*domain.Diff, error) {
	return diffJSON(before, after, tripDiffFields)
}

// diffJSON compares the JSON renderings field by field: what changed is what a
// consumer of the snapshot would see change.
func diffJSON(before, after any, fields []domain.Field) (*domain.Diff, error) {
	b, err := fieldsOf(before)
	if err != nil {
		return nil, err
	}
	a, err := fieldsOf(after)
	if err != nil {
		return nil, err
	}
	d := &domain.Diff{Changes: []domain.Change{}, PreviousAttributes: map[string]json.RawMessage{}}
	for _, f := range fields {
		if bytes.Equal(b[string(f)], a[string(f)]) {
			continue
		}
		d.Changes = append(d.Changes, f.Change())
		prev := b[string(f)]
		if prev == nil {
			prev = json.RawMessage("null")
		}
		d.PreviousAttributes[string(f)] = prev
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
func LoadEvents(id uuid.UUID, now time.Time, tenant uuid.UUID, before, after *domain.Load) ([]domain.Event, error) {
	base := domain.Event{Timestamp: now, TenantID: tenant, SubsidiaryID: after.SubsidiaryID, SubjectID: after.ID}
	changed := base
	changed.ID, changed.Type = id.String()+"-0", domain.EventLoadChanged
	changed.Data = domain.EventData{Load: after}
	if before == nil {
		return []domain.Event{changed}, nil
	}
	diff, err := DiffLoads(before, after)
	if err != nil {
		return nil, err
	}
	if len(diff.Changes) == 0 {
		return nil, nil
	}
	changed.Data.Diff = diff
	out := []domain.Event{changed}
	if before.Status != after.Status {
		status := base
		status.ID, status.Type = id.String()+"-1", domain.EventLoadStatusChanged
		status.Data = domain.EventData{Load: after}
		out = append(out, status)
	}
	return out, nil
}

// TripEvents builds the trip.changed event (<uuid>-0) of one trip write; its
// data carries the trip, the load it belongs to (after the write) and the diff.
func TripEvents(id uuid.UUID, now time.Time, tenant uuid.UUID, before, after *domain.Trip, load *domain.Load) ([]domain.Event, error) {
	diff, err := DiffTrips(before, after)
	if err != nil {
		return nil, err
	}
	if len(diff.Changes) == 0 {
		return nil, nil
	}
	return []domain.Event{{ID: id.String() + "-0", Type: domain.EventTripChanged, Timestamp: now, TenantID: tenant,
		SubsidiaryID: load.SubsidiaryID, SubjectID: after.ID, Data: domain.EventData{Load: load, Trip: after, Diff: diff}}}, nil
}
