package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
	"github.com/haulgraph/haulgraph/webhooksig"
)

// gqlData runs one GraphQL operation and returns its data, failing the test
// on any error.
func gqlData(t *testing.T, srv *apptest.Server, token, query string, vars map[string]any) map[string]json.RawMessage {
	t.Helper()
	data, errs := gqlRaw(t, srv, token, query, vars)
	if len(errs) > 0 {
		t.Fatalf("GraphQL %s: errors %s", query, errs)
	}
	return data
}

// gqlRaw runs one GraphQL operation and returns data and errors as sent.
func gqlRaw(t *testing.T, srv *apptest.Server, token, query string, vars map[string]any) (map[string]json.RawMessage, json.RawMessage) {
	t.Helper()
	res, b := testkit.PostGraphQL(t, srv.URL, token, "application/json", testkit.MustJSON(t, map[string]any{"query": query, "variables": vars}))
	var out struct {
		Data   map[string]json.RawMessage `json:"data"`
		Errors json.RawMessage            `json:"errors"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("GraphQL answer %d %s: %v", res.StatusCode, b, err)
	}
	return out.Data, out.Errors
}

// receiver is the shared webhook receiver, its deliveries collected by
// path and event id.
type receiver struct{ *testkit.Receiver }

func newReceiver(t *testing.T) receiver { return receiver{testkit.NewReceiver(t)} }

// answer sets the status business events are answered with (0: 200).
func (rc receiver) answer(status int) {
	rc.Answer(func(w http.ResponseWriter, _ testkit.Delivery) { w.WriteHeader(max(status, http.StatusOK)) })
}

// collect waits for the next n deliveries and returns them by path and
// event id, checking each signature against secrets[path].
func (rc receiver) collect(t *testing.T, n int, secrets map[string]string) map[string]map[string][]byte {
	t.Helper()
	out := map[string]map[string][]byte{}
	for range n {
		d := rc.Next(t)
		if err := webhooksig.Verify(d.Body, d.Header.Get("X-Service-Signature"), secrets[d.Path], time.Minute); err != nil {
			t.Fatalf("delivery to %s: signature: %v", d.Path, err)
		}
		if out[d.Path] == nil {
			out[d.Path] = map[string][]byte{}
		}
		out[d.Path][d.Header.Get("X-Service-Event-Id")] = d.Body
	}
	return out
}

// activeWebhook creates and enables a webhook through GraphQL (the
// management that existed before the REST routes) and returns its id and
// secret.
func activeWebhook(t *testing.T, srv *apptest.Server, token, url string, subsidiary uuid.UUID, types []string, previous bool) (string, string) {
	t.Helper()
	data := gqlData(t, srv, token, `mutation($in: CreateWebhookInput!) { createWebhook(input: $in) { secret webhook { id } } }`,
		map[string]any{"in": map[string]any{"name": "receiver", "url": url, "subsidiaryId": subsidiary, "eventTypes": types,
			"includePreviousAttributes": previous}})
	var created struct {
		Secret  string
		Webhook struct{ ID string }
	}
	if err := json.Unmarshal(data["createWebhook"], &created); err != nil {
		t.Fatal(err)
	}
	data = gqlData(t, srv, token, `mutation($id: ID!) { enableWebhook(id: $id) { state } }`, map[string]any{"id": created.Webhook.ID})
	if !bytes.Contains(data["enableWebhook"], []byte(`"Active"`)) {
		t.Fatalf("enable: %s", data["enableWebhook"])
	}
	return created.Webhook.ID, created.Secret
}

// execSQL runs statements as the owner (test set-up only).
func execSQL(t *testing.T, srv *apptest.Server, q string, args ...any) {
	t.Helper()
	if err := srv.DB.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		_, err := tx.ExecContext(ctx, q, args...)
		return err
	}); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// loadChangedEnvelope is a whole load.changed envelope for an event written
// straight into the outbox: what is delivered and listed is checked against
// the published schema.
func loadChangedEnvelope(t *testing.T, id string, subsidiary uuid.UUID) string {
	t.Helper()
	load := domain.Load{ID: uuid.New(), LoadNumber: "X-" + id[:8], Status: domain.LoadOpen, BillingStatus: "Released",
		SubsidiaryID: subsidiary, Rate: domain.NewMoney(decimal.Zero, domain.USD), Stops: []domain.Stop{}, Trips: []domain.Trip{}}
	b, err := domain.Event{ID: id, Type: domain.EventLoadChanged, Timestamp: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		Data: domain.EventData{Load: &load}}.MarshalEnvelope()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
