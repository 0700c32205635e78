package haulgraph_test

import (
	"encoding/json"
	"testing"

	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

// Amounts keep the exact text the API wrote, through decoding, sums and
// encoding; nothing passes through a float.
func TestDecimalExact(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ a, b, sum string }{
		{"0.1", "0.2", "0.3"},
		{"0.10", "0.20", "0.30"},
		{"123456789012345678.01", "0.99", "123456789012345679.00"},
		{"-5", "2.5", "-2.5"},
		{"1e2", "0.5", "100.5"},
	} {
		if got := haulgraph.MustDecimal(c.a).Add(haulgraph.MustDecimal(c.b)); got.String() != c.sum {
			t.Errorf("%s + %s = %s, want %s", c.a, c.b, got, c.sum)
		}
	}
	if got := haulgraph.Decimal("2.345").StringFixed(2); got != "2.35" {
		t.Errorf("StringFixed(2) of 2.345 = %s", got)
	}
	if haulgraph.Decimal("").String() != "0" || !haulgraph.Decimal("0.00").IsZero() || haulgraph.Decimal("10").Cmp("9.99") != 1 {
		t.Error("zero value or comparison")
	}
	for _, bad := range []string{"", "abc", "1,5", "0x10", "NaN", "+1"} {
		if _, err := haulgraph.ParseDecimal(bad); err == nil {
			t.Errorf("ParseDecimal(%q) accepted", bad)
		}
	}
}

// One Money type reads the REST shape and GraphQL's, and writes the REST
// shape back digit for digit.
func TestMoneyJSON(t *testing.T) {
	t.Parallel()
	const rest = `{"Amount":123456789012345678.01,"Currency":840}`
	var m haulgraph.Money
	if err := json.Unmarshal([]byte(rest), &m); err != nil {
		t.Fatal(err)
	}
	if m.Amount != "123456789012345678.01" || m.Currency == nil || *m.Currency != haulgraph.USD || m.String() != "123456789012345678.01 USD" {
		t.Errorf("REST money: %+v", m)
	}
	if b, err := json.Marshal(m); err != nil || string(b) != rest {
		t.Errorf("encoded %s %v, want %s", b, err, rest)
	}
	var g haulgraph.Money
	if err := json.Unmarshal([]byte(`{"amount":"2500.75","currency":124}`), &g); err != nil || g.String() != "2500.75 CAD" {
		t.Errorf("GraphQL money: %+v %v", g, err)
	}
	var none haulgraph.Money
	if err := json.Unmarshal([]byte(`{"Amount":0.5,"Currency":null}`), &none); err != nil || none.Currency != nil || none.String() != "0.5" {
		t.Errorf("money without a currency: %+v %v", none, err)
	}
	if err := json.Unmarshal([]byte(`{"Amount":"12abc"}`), &none); err == nil {
		t.Error("a malformed amount was accepted")
	}
	var absent *haulgraph.Money
	if absent.Value() != "0" {
		t.Error("a nil Money's value is not 0")
	}
}

// The events listing, a subscription and a webhook delivery decode into
// one Event: the same id, type, time, load and exact rate.
func TestOneEvent(t *testing.T) {
	t.Parallel()
	listing := `{"id":"7f6c-1","type":"load.status.changed","timestamp":"2026-03-01T10:00:00.123456+00:00","version":"2024-06-01",
		"data":{"load":{"Id":"a1","LoadNumber":"LD-1","Status":"Covered","Rate":{"Amount":1000.10,"Currency":840},
		"Stops":[{"Type":"Pickup","Name":"A"}],"Trips":[{"Id":"t1","TripNumber":"LD-1-T"}]}}}`
	subscription := `{"id":"7f6c-1","cursor":"c-9","type":"load.status.changed","timestamp":"2026-03-01T10:00:00.123456+00:00","version":"2024-06-01",
		"data":{"load":{"id":"a1","loadNumber":"LD-1","status":"Covered","rate":{"amount":1000.10,"currency":840},
		"stops":[{"type":"Pickup","name":"A"}],"trips":[{"id":"t1","tripNumber":"LD-1-T"}]}}}`
	var a, b haulgraph.Event
	if err := json.Unmarshal([]byte(listing), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(subscription), &b); err != nil {
		t.Fatal(err)
	}
	for _, e := range []haulgraph.Event{a, b} {
		if e.ID != "7f6c-1" || e.Type != haulgraph.EventLoadStatusChanged || e.Timestamp.Nanosecond() != 123456000 ||
			e.Data.Load.LoadNumber != "LD-1" || e.Data.Load.Status != haulgraph.LoadStatusCovered || e.Data.Load.Rate.String() != "1000.10 USD" ||
			e.Data.Load.Trips[0].TripNumber != "LD-1-T" || e.Data.Load.Stops[0].Type != haulgraph.StopPickup {
			t.Errorf("decoded %+v (load %+v)", e, e.Data.Load)
		}
	}
	if !a.Timestamp.Equal(b.Timestamp) || b.Cursor != "c-9" {
		t.Errorf("timestamps %s and %s, cursor %q", a.Timestamp, b.Timestamp, b.Cursor)
	}
}
