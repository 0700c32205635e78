package contract

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
)

// The published ChangedField enum of every event schema is domain's
// enumeration of change targets, and an event naming any of them validates
// on every channel that carries envelopes.
func TestChangedFieldIsTheEnumeration(t *testing.T) {
	t.Parallel()
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]string, 0)
	for _, f := range domain.ChangeTargets() {
		want = append(want, string(f))
	}
	for _, et := range []string{domain.EventLoadChanged, domain.EventTripChanged} {
		var doc struct {
			Defs map[string]struct{ Enum []string } `json:"$defs"`
		}
		if err := json.Unmarshal(EventSchema(et), &doc); err != nil {
			t.Fatal(err)
		}
		if got := doc.Defs[eventschema.DefFieldName].Enum; !slices.Equal(got, want) {
			t.Errorf("%s ChangedField %v, want domain.ChangeTargets %v", et, got, want)
		}
	}
	_, after := sampleLoads()
	for _, f := range domain.Fields {
		e := documents.LoadEvent(uuid.New(), time.Now(), uuid.New(), after)
		e.Data.Diff.Changes = []domain.Change{f.Change()}
		for _, ch := range []string{eventlog.ChannelOutbox, eventschema.ChannelWebhook, eventschema.ChannelEventsAPI} {
			if err := v.Validate(ch, e.Type, mustBody(t, e, true)); err != nil {
				t.Errorf("a change of %s: %v", f, err)
			}
		}
	}
	// Nothing else can be emitted: the envelope of a target outside the
	// enumeration does not render.
	e := documents.LoadEvent(uuid.New(), time.Now(), uuid.New(), after)
	e.Data.Diff.Changes = []domain.Change{{Kind: domain.ChangeField, Target: &domain.ChangeTarget{Type: domain.ChangeTargetField, ID: "Colour"}}}
	if b, err := e.MarshalEnvelope(); err == nil {
		t.Errorf("an unpublished target rendered: %s", b)
	}
	e.Data.Diff.Changes[0].Target.ID = ""
	if b, err := e.MarshalEnvelope(); err == nil {
		t.Errorf("an empty target rendered: %s", b)
	}
}

// Every field the diff code compares is a change it can produce: two
// snapshots that differ in all of them give one change per field, and the
// events validate, previousAttributes and all.
func TestEveryDiffChangeIsPublished(t *testing.T) {
	t.Parallel()
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	before, after := sampleLoads()
	cust, name, other := uuid.New(), "Acme Freight", "Other"
	weight := domain.Decimal{Decimal: decimal.RequireFromString("1.25")}
	after.LoadNumber, after.BillingStatus, after.SubsidiaryID, after.SubsidiaryName = "L-2", "Paid", uuid.New(), "South"
	after.CustomerID, after.CustomerName, before.CustomerName = &cust, &name, &other
	after.OrderNumber, after.PONumber, after.Source, after.Weight, after.EquipmentType = "O", "P", "S", &weight, "Van"
	after.Stops = after.Stops[:1]
	after.Trips = []domain.Trip{}
	d, err := loads.DiffLoads(before, after)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Changes) != len(loads.LoadDiffFields()) {
		t.Fatalf("%d changes for %d differing fields: %+v", len(d.Changes), len(loads.LoadDiffFields()), d.Changes)
	}
	events, err := loads.LoadEvents(uuid.New(), time.Now(), uuid.New(), before, after)
	if err != nil {
		t.Fatal(err)
	}
	tb := domain.Trip{ID: uuid.New(), TripNumber: "1", Status: "Planned", DriverIDs: []uuid.UUID{}}
	ta := domain.Trip{ID: tb.ID, TripNumber: "2", Status: "Dispatched", DriverIDs: []uuid.UUID{uuid.New()}, TruckID: &cust, TrailerID: &cust, CarrierID: &cust}
	td, err := loads.DiffTrips(&tb, &ta)
	if err != nil || len(td.Changes) != len(loads.TripDiffFields()) {
		t.Fatalf("trip diff: %v, %+v", err, td)
	}
	trips, err := loads.TripEvents(uuid.New(), time.Now(), uuid.New(), &tb, &ta, after)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range append(events, trips...) {
		for _, previous := range []bool{false, true} {
			if err := v.Validate(eventlog.ChannelOutbox, e.Type, mustBody(t, e, previous)); err != nil {
				t.Errorf("%s: %v", e.Type, err)
			}
		}
	}
}

// A document upload's load.changed names Documents, carries the load's
// customer name and matches the published schema.
func TestUploadEventIsPublished(t *testing.T) {
	t.Parallel()
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	_, after := sampleLoads()
	name := "Acme Freight"
	after.CustomerName = &name
	e := documents.LoadEvent(uuid.New(), time.Now(), uuid.New(), after)
	for _, ch := range []string{eventlog.ChannelOutbox, eventschema.ChannelWebhook, eventschema.ChannelEventsAPI} {
		body := mustBody(t, e, ch == eventlog.ChannelOutbox)
		if err := v.Validate(ch, e.Type, body); err != nil {
			t.Errorf("%s: %v\n%s", ch, err, body)
		}
	}
	var env struct {
		Data struct {
			Load map[string]any
			Diff struct{ Changes []map[string]any }
		}
	}
	if err := json.Unmarshal(mustBody(t, e, true), &env); err != nil {
		t.Fatal(err)
	}
	if env.Data.Load["CustomerName"] != name {
		t.Errorf("data.load.CustomerName %v", env.Data.Load["CustomerName"])
	}
	if c := env.Data.Diff.Changes; len(c) != 1 || c[0]["target"].(map[string]any)["id"] != "Documents" {
		t.Errorf("changes %v", c)
	}
}
