package domain

import (
	"encoding/json"
	"fmt"
)

// Field is a field a write's data.diff can name: a field of the load or
// trip snapshot (its JSON name), or Documents. It is the one enumeration
// of change targets: the diff code builds its changes from these values
// (Field.Change) and the event schemas publish ChangeTargets as the
// ChangedField enum, so a target cannot be emitted without being published.
type Field string

// The load snapshot's fields a diff compares, the trip's, and Documents.
const (
	FieldLoadNumber     Field = "LoadNumber"
	FieldStatus         Field = "Status"
	FieldBillingStatus  Field = "BillingStatus"
	FieldSubsidiaryID   Field = "SubsidiaryId"
	FieldSubsidiaryName Field = "SubsidiaryName"
	FieldCustomerID     Field = "CustomerId"
	FieldCustomerName   Field = "CustomerName"
	FieldOrderNumber    Field = "OrderNumber"
	FieldPONumber       Field = "PONumber"
	FieldSource         Field = "Source"
	FieldRate           Field = "Rate"
	FieldWeight         Field = "Weight"
	FieldCommodity      Field = "Commodity"
	FieldEquipmentType  Field = "EquipmentType"
	FieldStops          Field = "Stops"
	FieldTrips          Field = "Trips"

	FieldTripNumber Field = "TripNumber"
	FieldDriverIDs  Field = "DriverIds"
	FieldTruckID    Field = "TruckId"
	FieldTrailerID  Field = "TrailerId"
	FieldCarrierID  Field = "CarrierId"

	// FieldDocuments is a document added to the load or to one of its
	// trips: the snapshot does not carry documents, so previousAttributes
	// never names it.
	FieldDocuments Field = "Documents"
)

// Fields are every Field, in the order the schemas list them.
var Fields = []Field{
	FieldLoadNumber, FieldStatus, FieldBillingStatus, FieldSubsidiaryID, FieldSubsidiaryName, FieldCustomerID,
	FieldCustomerName, FieldOrderNumber, FieldPONumber, FieldSource, FieldRate, FieldWeight, FieldCommodity,
	FieldEquipmentType, FieldStops, FieldTrips,
	FieldTripNumber, FieldDriverIDs, FieldTruckID, FieldTrailerID, FieldCarrierID,
	FieldDocuments,
}

// Change is the data.diff.changes entry of a change of f: Status and Rate
// have their own kinds, every other field is FieldChanged with f as target.
func (f Field) Change() Change {
	switch f {
	case FieldStatus:
		return Change{Kind: ChangeStatus}
	case FieldRate:
		return Change{Kind: ChangeRate}
	}
	return Change{Kind: ChangeField, Target: &ChangeTarget{Type: ChangeTargetField, ID: f}}
}

// ChangeTargets are the fields a FieldChanged change can name, in order:
// the published ChangedField enum.
func ChangeTargets() []Field {
	var out []Field
	for _, f := range Fields {
		if f.Change().Target != nil {
			out = append(out, f)
		}
	}
	return out
}

var published = func() map[Field]bool {
	m := map[Field]bool{}
	for _, f := range ChangeTargets() {
		m[f] = true
	}
	return m
}()

// ChangeTargetField is a ChangeTarget's type: the only one there is.
const ChangeTargetField = "Field"

// MarshalJSON refuses a target outside the enumeration: an event naming
// one would not match its published schema, so the write fails instead of
// committing it.
func (t ChangeTarget) MarshalJSON() ([]byte, error) {
	if t.Type != ChangeTargetField || !published[t.ID] {
		return nil, fmt.Errorf("domain: change target %s %q is not a published ChangedField", t.Type, t.ID)
	}
	type plain ChangeTarget
	return json.Marshal(plain(t))
}
