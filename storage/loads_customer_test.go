package storage_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/contract/emitted"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// A load's events carry its customer's name, read by the snapshot
// statement the write already runs in its own transaction (a join on the
// tenant's customers): a write costs the same three round trips as before,
// and another tenant's customer is never named, even when a row points at
// it.
func TestLoadEventsCarryCustomerName(t *testing.T) {
	t.Parallel()
	rt := &storage.RoundTrips{}
	db, err := storage.Open(context.Background(), dbtest.URL(t), storage.CountRoundTrips(rt))
	if err != nil {
		t.Fatal(err)
	}
	check := emitted.New(t)
	db.Appended = check.Hook(nil)
	t.Cleanup(func() { db.Close(); check.End() })
	f := newWriteFixture(t, db)
	other := newWriteFixture(t, db)
	mine, theirs := uuid.New(), uuid.New()
	if _, err := db.Pool.Exec(context.Background(), `INSERT INTO customers (id, tenant_id, name) VALUES ($1, $2, 'Acme Freight'), ($3, $4, 'Bolt Freight')`,
		mine, f.tenant, theirs, other.tenant); err != nil {
		t.Fatal(err)
	}
	f.create(t, "C-1")
	id := mine.String()
	if _, err := f.svc.UpdateLoad(f.ctx, "C-1", loads.Patch{CustomerID: &id}); err != nil {
		t.Fatal(err)
	}
	before := rt.Callers()
	if _, err := f.svc.ChangeLoadStatus(f.ctx, "C-1", "Covered"); err != nil {
		t.Fatal(err)
	}
	if n := rt.Callers() - before; n != 3 {
		t.Errorf("changeLoadStatus with a customer: %d round trips, want 3 (lock and read, write and read back, events and commit)", n)
	}
	// The other tenant's customer, pointed at behind the API's back (the
	// API refuses it): the snapshot's join keeps to the load's tenant.
	if _, err := db.Pool.Exec(context.Background(), "UPDATE loads SET customer_id = $1 WHERE tenant_id = $2 AND load_number = 'C-1'", theirs, f.tenant); err != nil {
		t.Fatal(err)
	}
	commodity := "Steel"
	if _, err := f.svc.UpdateLoad(f.ctx, "C-1", loads.Patch{Commodity: &commodity}); err != nil {
		t.Fatal(err)
	}

	var names []any
	for _, e := range outboxEvents(t, db) {
		var env struct {
			Data struct {
				Load map[string]any
				Diff *struct{ PreviousAttributes map[string]any }
			}
		}
		if err := json.Unmarshal(e.Payload, &env); err != nil {
			t.Fatal(err)
		}
		name, ok := env.Data.Load["CustomerName"]
		if !ok {
			t.Fatalf("%s %s: no CustomerName: %s", e.ID, e.Type, e.Payload)
		}
		names = append(names, name)
		if len(names) == 2 { // the customer set: both fields changed from null
			prev := env.Data.Diff.PreviousAttributes
			if v, ok := prev["CustomerName"]; !ok || v != nil || len(prev) != 2 {
				t.Errorf("the customer's change: previousAttributes %v", prev)
			}
		}
	}
	// create; customer set; status (load.changed, load.status.changed);
	// the commodity, with the foreign customer unnamed.
	want := []any{nil, "Acme Freight", "Acme Freight", "Acme Freight", nil}
	if len(names) != len(want) {
		t.Fatalf("CustomerName by event %v, want %v", names, want)
	}
	for i := range want {
		if names[i] != want[i] {
			t.Fatalf("CustomerName by event %v, want %v", names, want)
		}
	}
	if got := check.Checked()[eventlog.ChannelOutbox]; got != len(want) {
		t.Errorf("%d outbox envelopes checked, want %d", got, len(want))
	}
}
