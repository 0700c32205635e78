package contract

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
)

// The committed (and served) files are what go generate writes from the
// current domain and GraphQL schema.
func TestFilesAreGenerated(t *testing.T) {
	t.Parallel()
	files, err := eventschema.Files("../schema")
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range files {
		got, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what go generate writes: run `go generate ./contract/` (%v)", path, err)
		}
	}
	if !bytes.Equal(AsyncAPIJSON, files["asyncapi.json"]) || !bytes.Equal(OpenAPIWebhooksJSON, files["openapi-webhooks.json"]) {
		t.Error("embedded documents differ from the generated ones")
	}
	for _, et := range eventschema.EventTypes() {
		if !bytes.Equal(EventSchema(et), files["schemas/"+et+".json"]) {
			t.Errorf("embedded schema of %s differs", et)
		}
	}
}

func sampleLoads() (before, after *domain.Load) {
	id, sub, cust, loc := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	appt := time.Date(2026, 3, 9, 8, 0, 0, 0, time.UTC)
	weight := domain.Decimal{Decimal: decimal.RequireFromString("42000.50")}
	mk := func() *domain.Load {
		return &domain.Load{ID: id, LoadNumber: "L-1", Status: domain.LoadOpen, BillingStatus: "Released",
			SubsidiaryID: sub, SubsidiaryName: "North", CustomerID: &cust, Rate: domain.NewMoney(decimal.RequireFromString("131072.01"), domain.USD),
			Weight: &weight, Stops: []domain.Stop{{Sequence: 1, Type: domain.Pickup, LocationID: &loc, Name: "Dock",
				Address: domain.Address{City: "Austin"}, AppointmentStart: &appt}, {Sequence: 2, Type: domain.Delivery}},
			Trips:     []domain.Trip{{ID: uuid.New(), TripNumber: "T-1", Status: "Planned", DriverIDs: []uuid.UUID{}}},
			CreatedAt: appt, UpdatedAt: appt}
	}
	before, after = mk(), mk()
	after.Status, after.Rate, after.Weight, after.Commodity, after.CustomerID = domain.LoadCovered, domain.NewMoney(decimal.RequireFromString("99.5"), domain.USD), nil, "Steel", nil
	return before, after
}

func mustBody(t *testing.T, e domain.Event, previous bool) []byte {
	t.Helper()
	env, err := e.MarshalEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	b, err := eventlog.WebhookBody(env, previous)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Events built by domain, as every channel renders them, match; altered
// ones do not.
func TestValidatorOnDomainEvents(t *testing.T) {
	t.Parallel()
	v, err := NewValidator()
	if err != nil {
		t.Fatal(err)
	}
	before, after := sampleLoads()
	now := time.Now()
	created, err := loads.LoadEvents(uuid.New(), now, uuid.New(), nil, after)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := loads.LoadEvents(uuid.New(), now, uuid.New(), before, after)
	if err != nil || len(changed) != 2 {
		t.Fatalf("load events: %v, %d", err, len(changed))
	}
	trip := after.Trips[0]
	trip2 := trip
	trip2.DriverIDs, trip2.CarrierID = []uuid.UUID{uuid.New()}, &after.SubsidiaryID
	trips, err := loads.TripEvents(uuid.New(), now, uuid.New(), &trip, &trip2, after)
	if err != nil || len(trips) != 1 {
		t.Fatalf("trip events: %v, %d", err, len(trips))
	}
	all := append(append(created, changed...), trips...)
	for _, e := range all {
		for _, previous := range []bool{false, true} {
			body := mustBody(t, e, previous)
			for _, ch := range []string{eventschema.ChannelWebhook, eventschema.ChannelEventsAPI} {
				if err := v.Validate(ch, e.Type, body); err != nil {
					t.Errorf("%s: %v\n%s", e.Type, err, body)
				}
			}
		}
	}
	verification, _ := json.Marshal(map[string]string{"type": domain.EventWebhookVerification, "challenge": "abc"})
	if err := v.Validate(eventschema.ChannelWebhook, domain.EventWebhookVerification, verification); err != nil {
		t.Error(err)
	}

	body := string(mustBody(t, changed[0], true))
	for name, bad := range map[string]string{
		"unknown change kind":      strings.Replace(body, `"StatusChanged"`, `"StatusSet"`, 1),
		"unknown load field":       strings.Replace(body, `"Commodity":"Steel"`, `"Commodity":"Steel","Colour":"red"`, 1),
		"missing load field":       strings.Replace(body, `"Commodity":"Steel",`, ``, 1),
		"amount as a string":       strings.Replace(body, `"Amount":99.5`, `"Amount":"99.5"`, 1),
		"timestamp without offset": strings.Replace(body, `+00:00"`, `Z"`, 1),
	} {
		if bad == body {
			t.Fatalf("%s: the replacement did not apply to %s", name, body)
		}
		if err := v.Validate(eventschema.ChannelWebhook, domain.EventLoadChanged, []byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if err := v.Validate(eventschema.ChannelWebhook, domain.EventLoadStatusChanged, []byte(body)); err == nil {
		t.Error("a load.changed body accepted as load.status.changed")
	}
	if err := v.Validate(eventschema.ChannelEventsAPI, domain.EventWebhookVerification, verification); err == nil {
		t.Error("the events API accepted a verification request")
	}

	// Subscription results: only what was selected, each with its type.
	ok := `{"data":{"loadChanged":{"id":"x","data":{"load":{"loadNumber":"L-1","rate":{"amount":1.5}},"diff":null}}}}`
	if err := v.Validate(eventschema.ChannelGraphQLWS, domain.EventLoadChanged, []byte(ok)); err != nil {
		t.Errorf("selection subset refused: %v", err)
	}
	for name, bad := range map[string]string{
		"wrong type":        `{"data":{"loadChanged":{"id":1}}}`,
		"null for non-null": `{"data":{"loadChanged":{"data":{"load":null}}}}`,
		"unknown field":     `{"data":{"loadChanged":{"colour":"red"}}}`,
	} {
		if err := v.Validate(eventschema.ChannelGraphQLSSE, domain.EventLoadChanged, []byte(bad)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
