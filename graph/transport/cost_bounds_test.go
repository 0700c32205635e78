package transport_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// TestCostCoversWhatIsReturned: the requested cost charged before an
// operation is at least the objects it returns, whatever it selects through
// a union's fragments (inline or named) and however many elements a list
// holds up to its bound: loads of 100 stops read through events and
// through loads.
func TestCostCoversWhatIsReturned(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "acme")
	write := writer(t, srv, tn)
	for i := range 2 {
		mustGQL(t, srv, write, createLoad, createLoadVars(fmt.Sprintf("CB-%d", i), tn.SubsidiaryID.String(), 100))
	}
	read := srv.Token(t, tn, domain.ScopeLoadRead, domain.ScopeTripRead)
	// The events are listed once the relay has published them.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		var page struct {
			Edges []json.RawMessage `json:"edges"`
		}
		_ = json.Unmarshal(mustGQL(t, srv, read, `{ events { edges { cursor } } }`, nil).Data["events"], &page)
		if len(page.Edges) >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d events listed, want 2", len(page.Edges))
		}
	}
	for _, q := range []string{
		`{ events(first: 50) { edges { node { ... on LoadEvent { data { load { stops { name } } } } } } } }`,
		`{ events(first: 50) { nodes { ...E } } } fragment E on LoadEvent { data { load { stops { name } trips { tripNumber } } } }`,
		`{ events(first: 20) { nodes { ... on Event { ... on LoadEvent { data { load { stops { address { city } } } } } } } } }`,
		`{ loads(first: 2) { items { stops { name address { city } } trips { tripNumber } } } }`,
	} {
		out := mustGQL(t, srv, read, q, nil)
		var cost struct {
			Requested int `json:"requestedQueryCost"`
			Actual    int `json:"actualQueryCost"`
		}
		if err := json.Unmarshal(out.Extensions["cost"], &cost); err != nil {
			t.Fatalf("%s: no cost: %v", q, err)
		}
		t.Logf("%s: requested %d, returned %d objects", q, cost.Requested, cost.Actual)
		if cost.Actual < 100 || cost.Requested < cost.Actual {
			t.Errorf("%s: charged %d for %d objects returned", q, cost.Requested, cost.Actual)
		}
	}
}
