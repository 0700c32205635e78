package loads

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/shopspring/decimal"
)

func TestLoadTransitions(t *testing.T) {
	t.Parallel()
	for _, from := range []domain.LoadStatus{domain.LoadOpen, domain.LoadCovered, domain.LoadDispatched} {
		if err := CheckTransition(from, domain.LoadCancelled); err != nil {
			t.Errorf("%s → Cancelled refused: %v", from, err)
		}
	}
	for _, from := range []domain.LoadStatus{domain.LoadQuoted, domain.LoadReserved, domain.LoadInTransit, domain.LoadDelivered, domain.LoadTONU, domain.LoadCancelled} {
		err := CheckTransition(from, domain.LoadCancelled)
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalid {
			t.Fatalf("%s → Cancelled: want BAD_USER_INPUT, got %v", from, err)
		}
		for _, next := range NextStatuses(from) {
			if !strings.Contains(de.Message, string(next)) {
				t.Errorf("%s: message %q does not name allowed %s", from, de.Message, next)
			}
		}
	}
	if err := CheckTransition(domain.LoadDelivered, domain.LoadOpen); err == nil || !strings.Contains(err.Error(), "final") {
		t.Errorf("Delivered is final: %v", err)
	}
	if err := CheckTransition(domain.LoadOpen, "Lost"); err == nil || domain.CodeOf(err) != domain.CodeInvalid {
		t.Errorf("unknown status accepted: %v", err)
	}
	for from, next := range loadTransitions {
		for _, to := range next {
			if from == to {
				t.Errorf("%s → itself is not a transition", from)
			}
		}
	}
}

func sampleLoad() *domain.Load {
	w := domain.Decimal{Decimal: decimal.RequireFromString("1200")}
	return &domain.Load{ID: uuid.New(), LoadNumber: "L-1", Status: domain.LoadOpen, BillingStatus: "Released", SubsidiaryID: uuid.New(),
		Rate: domain.NewMoney(decimal.RequireFromString("1500.5"), domain.USD), Weight: &w, Commodity: "Paper",
		Stops: []domain.Stop{{Sequence: 1, Type: domain.Pickup, Name: "A"}}, Trips: []domain.Trip{}, CreatedAt: time.Unix(0, 0), UpdatedAt: time.Unix(0, 0)}
}

func TestDiffLoadsKinds(t *testing.T) {
	t.Parallel()
	before := sampleLoad()
	after := *before
	after.Status = domain.LoadCovered
	after.Rate = domain.NewMoney(decimal.RequireFromString("1700"), domain.USD)
	after.Commodity = "Steel"
	after.UpdatedAt = time.Unix(100, 0)
	d, err := DiffLoads(before, &after)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(d.Changes)
	want := `[{"kind":"StatusChanged"},{"kind":"RateChanged"},{"kind":"FieldChanged","target":{"type":"Field","id":"Commodity"}}]`
	if string(got) != want {
		t.Fatalf("changes = %s, want %s", got, want)
	}
	prev, _ := json.Marshal(d.PreviousAttributes)
	if string(prev) != `{"Commodity":"Paper","Rate":{"Amount":1500.5,"Currency":840},"Status":"Open"}` {
		t.Fatalf("previousAttributes = %s", prev)
	}
	same := *before
	same.UpdatedAt = time.Unix(200, 0)
	if d, _ := DiffLoads(before, &same); len(d.Changes) != 0 {
		t.Fatalf("UpdatedAt alone is no change: %+v", d.Changes)
	}
}

func TestLoadEvents(t *testing.T) {
	t.Parallel()
	id, tenant, now := uuid.New(), uuid.New(), time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l := sampleLoad()
	created, err := LoadEvents(id, now, tenant, nil, l)
	if err != nil || len(created) != 1 || created[0].ID != id.String()+"-0" || created[0].Data.Diff != nil {
		t.Fatalf("creation: %+v %v", created, err)
	}
	after := *l
	after.Status = domain.LoadCovered
	evs, _ := LoadEvents(id, now, tenant, l, &after)
	if len(evs) != 2 || evs[0].Type != domain.EventLoadChanged || evs[1].Type != domain.EventLoadStatusChanged ||
		evs[0].ID != id.String()+"-0" || evs[1].ID != id.String()+"-1" || evs[1].Data.Diff != nil || evs[0].Data.Diff == nil {
		t.Fatalf("status write: %+v", evs)
	}
	raw, _ := evs[0].MarshalEnvelope()
	var env map[string]any
	_ = json.Unmarshal(raw, &env)
	if env["version"] != "v1" || env["timestamp"] != "2026-01-02T03:04:05.000000+00:00" || env["id"] != id.String()+"-0" {
		t.Fatalf("envelope: %s", raw)
	}
	stripped, err := domain.StripPreviousAttributes(raw)
	if err != nil || strings.Contains(string(stripped), "previousAttributes") || !strings.Contains(string(raw), "previousAttributes") ||
		!strings.Contains(string(stripped), `"changes":[{"kind":"StatusChanged"}]`) {
		t.Fatalf("strip: %s (%v)", stripped, err)
	}
	rate := after
	rate.Rate = domain.NewMoney(decimal.RequireFromString("9"), domain.USD)
	evs, _ = LoadEvents(id, now, tenant, &after, &rate)
	if len(evs) != 1 || evs[0].Data.Diff.Changes[0].Kind != domain.ChangeRate {
		t.Fatalf("rate write: %+v", evs)
	}
	if evs, _ := LoadEvents(id, now, tenant, &rate, &rate); len(evs) != 0 {
		t.Fatalf("no-op write emitted %d events", len(evs))
	}
}

func TestLoadInputValidation(t *testing.T) {
	t.Parallel()
	bad := "x"
	neg := MoneyInput{Amount: decimal.RequireFromString("-1")}
	in := Input{LoadNumber: "../../LD-175396", SubsidiaryID: "nope", CustomerID: &bad, Rate: &neg,
		Stops: []StopInput{{Type: "Lunch"}}, Trips: []TripInput{{TripNumber: "T/1", DriverIDs: []string{"zz"}}}}
	_, _, err := in.validate(time.Now())
	var de *domain.Error
	if !errors.As(err, &de) {
		t.Fatalf("want validation error, got %v", err)
	}
	for _, f := range []string{"LoadNumber", "SubsidiaryId", "CustomerId", "Rate.Amount", "Stops[0].Type", "Trips[0].DriverIds[0]", "Trips[0].TripNumber"} {
		if len(de.Fields[f]) == 0 {
			t.Errorf("no error on %s: %v", f, de.Fields)
		}
	}
	sub := uuid.NewString()
	ok := Input{LoadNumber: "L-9", SubsidiaryID: sub, Stops: []StopInput{{Type: "Pickup"}, {Type: "Delivery"}},
		Trips: []TripInput{{TripNumber: "T1"}}}
	l, refs, err := ok.validate(time.Now())
	if err != nil || l.Status != domain.LoadOpen || len(l.Stops) != 2 || l.Stops[1].Sequence != 2 || len(refs) != 1 || refs[0].Table != "subsidiaries" {
		t.Fatalf("valid input: %+v %+v %v", l, refs, err)
	}
	for _, n := range []string{" L-9", "L-9\t", `L\9`, ".."} { // refused, not trimmed
		odd := ok
		odd.LoadNumber = n
		if _, _, err := odd.validate(time.Now()); !errors.As(err, &de) || len(de.Fields["LoadNumber"]) == 0 {
			t.Errorf("load number %q: %v, want a refusal naming LoadNumber", n, err)
		}
	}
	tooMany := ok
	tooMany.Stops = make([]StopInput, MaxStops+1)
	if _, _, err := tooMany.validate(time.Now()); err == nil {
		t.Fatal("more than MaxLoadStops stops accepted")
	}
}
