// Package ajv holds the served event schemas to ajv, the most used JSON
// Schema validator: check.mjs compiles each with ajv 2020 (defaults, and
// strict: true) and validates real emitted events against them. ajv and
// ajv-formats are pinned by contract/package-lock.json, installed on first
// use (npmci).
package ajv

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/npmci"
	"github.com/haulgraph/haulgraph/testkit"
)

// TestServedSchemasInAjv: every event schema the server serves compiles in
// ajv 2020 with its default options and with strict: true, and the events a
// running instance emitted (a load created with a customer and changed, its
// status changed, a trip assigned, a document uploaded), read back from the
// events API with their previous attributes, validate against them; a
// tampered event does not. Each event also carries the load's customer
// name.
func TestServedSchemasInAjv(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	npmci.Install(t, "..")

	srv := apptest.Start(t, apptest.Options{})
	tn := apptest.NewTenant(t, srv, "ajv")
	customer := uuid.New()
	if _, err := srv.DB.Pool.Exec(ctx, "INSERT INTO customers (id, tenant_id, name) VALUES ($1, $2, 'Acme Freight')", customer, tn.ID); err != nil {
		t.Fatal(err)
	}
	write := srv.Token(t, tn, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripUpdate)
	created := gql(t, srv.URL, write, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { trips { id } } }`, map[string]any{"in": map[string]any{
		"loadNumber": "AJV-1", "subsidiaryId": tn.SubsidiaryID.String(), "customerId": customer.String(),
		"rate": map[string]any{"amount": 1500.5}, "commodity": "Paper", "trips": []any{map[string]any{"tripNumber": "AJV-1-T1"}},
		"stops": []any{
			map[string]any{"type": "Pickup", "name": "Dock", "address": map[string]any{"street": "1 Main", "city": "Springfield", "state": "IL", "zipCode": "62701"}},
			map[string]any{"type": "Delivery", "name": "Store", "address": map[string]any{"street": "2 Main", "city": "Peoria", "state": "IL", "zipCode": "61602"}},
		}}})
	var load struct {
		CreateLoad struct{ Trips []struct{ ID string } }
	}
	if err := json.Unmarshal(created, &load); err != nil || len(load.CreateLoad.Trips) != 1 {
		t.Fatalf("createLoad: %v %s", err, created)
	}
	gql(t, srv.URL, write, `mutation { updateLoad(loadNumber: "AJV-1", input: {rate: {amount: 131072.01}, weight: 42000.5, poNumber: "PO-7"}) { loadNumber } }`, nil)
	gql(t, srv.URL, write, `mutation { changeLoadStatus(loadNumber: "AJV-1", status: Covered) { status } }`, nil)
	truck := uuid.New()
	if _, err := srv.DB.Pool.Exec(ctx, "INSERT INTO trucks (id, tenant_id, number) VALUES ($1, $2, 'T-1')", truck, tn.ID); err != nil {
		t.Fatal(err)
	}
	gql(t, srv.URL, write, `mutation($id: ID!, $truck: ID) { updateTrip(id: $id, input: {truckId: $truck}) { id } }`,
		map[string]any{"id": load.CreateLoad.Trips[0].ID, "truck": truck.String()})
	upload(t, srv.URL+"/api/p/v1/loads/AJV-1/document", write)

	dir := t.TempDir()
	schemas := filepath.Join(dir, "schemas")
	if err := os.Mkdir(schemas, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, et := range eventschema.EventTypes() {
		body := get(t, srv.URL+"/api/p/schemas/events/"+et+".json", "")
		if err := os.WriteFile(filepath.Join(schemas, et+".json"), body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := srv.Token(t, tn, domain.ScopeLoadRead, domain.ScopeTripRead)
	// The events API lists an event once no older transaction of the
	// cluster is still open (its visibility horizon); other tests share the
	// cluster, so the listing is asked again until all six are there:
	// create, update, status, upload; the status change; the trip.
	var raw []byte
	for deadline := time.Now().Add(time.Minute); ; {
		raw = get(t, srv.URL+"/api/p/v1/events?limit=100&includePreviousAttributes=true", read)
		types, documents := countEvents(t, raw)
		if types[domain.EventLoadChanged] == 4 && types[domain.EventLoadStatusChanged] == 1 && types[domain.EventTripChanged] == 1 && documents == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("events by type %v, %d Documents changes: %s", types, documents, raw)
		}
		time.Sleep(50 * time.Millisecond) // polling the horizon, bounded by the deadline
	}
	eventsFile := filepath.Join(dir, "events.json")
	if err := os.WriteFile(eventsFile, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := node(ctx, schemas, eventsFile)
	if err != nil || !strings.HasSuffix(out, "\nok\n") || strings.Count(out, ": valid\n") != 2*6 {
		t.Fatalf("ajv: %v\n%s", err, out)
	}

	// The same run refuses an event naming a target the schema does not
	// publish, so a validator that accepted anything would fail here.
	tampered := bytes.Replace(raw, []byte(`"Documents"`), []byte(`"Attachments"`), 1)
	if bytes.Equal(tampered, raw) {
		t.Fatal("no Documents target to tamper with")
	}
	if err := os.WriteFile(eventsFile, tampered, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := node(ctx, schemas, eventsFile); err == nil || strings.Count(out, "(load.changed): [") != 2 {
		t.Fatalf("ajv accepted a tampered event (%v):\n%s", err, out)
	}
}

func node(ctx context.Context, schemas, events string) (string, error) {
	cmd := exec.CommandContext(ctx, "node", "check.mjs", schemas, events)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func get(t *testing.T, url, token string) []byte {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return do(t, req)
}

// do sends req; an answer other than 2xx fails the test.
func do(t *testing.T, req *http.Request) []byte {
	t.Helper()
	res, body := testkit.Do(t, req)
	if res.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL, res.StatusCode, body)
	}
	return body
}

// gql runs a GraphQL operation and answers its data; errors fail the test.
func gql(t *testing.T, base, token, query string, vars map[string]any) json.RawMessage {
	t.Helper()
	answer, body := testkit.GraphQL(t, base, token, query, vars)
	var res struct {
		Data   json.RawMessage
		Errors []any
	}
	if err := json.Unmarshal(body, &res); err != nil || answer.StatusCode != http.StatusOK || len(res.Errors) > 0 {
		t.Fatalf("%s: %d %v %v", query, answer.StatusCode, err, res.Errors)
	}
	return res.Data
}

// upload posts a small PDF as the load's Proof of Delivery.
func upload(t *testing.T, url, token string) {
	t.Helper()
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	_ = w.WriteField("DocumentType", "Proof of Delivery")
	f, _ := w.CreateFormFile("File", "pod.pdf")
	_, _ = io.WriteString(f, "%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	_ = w.Close()
	req, _ := http.NewRequest(http.MethodPost, url, &body)
	req.Header.Set("Content-Type", w.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+token)
	do(t, req)
}

// countEvents counts the listed events by type and their Documents
// changes, checking each carries its load's customer name.
func countEvents(t *testing.T, raw []byte) (map[string]int, int) {
	t.Helper()
	var events []struct {
		ID, Type string
		Data     struct {
			Load map[string]any
			Diff *struct {
				Changes []struct{ Target *struct{ ID string } }
			}
		}
	}
	if err := json.Unmarshal(raw, &events); err != nil {
		t.Fatalf("events: %v %s", err, raw)
	}
	types := map[string]int{}
	documents := 0
	for _, e := range events {
		types[e.Type]++
		if e.Data.Load["CustomerName"] != "Acme Freight" {
			t.Errorf("%s %s: data.load.CustomerName %v, want the customer's name", e.ID, e.Type, e.Data.Load["CustomerName"])
		}
		if e.Data.Diff != nil {
			for _, c := range e.Data.Diff.Changes {
				if c.Target != nil && c.Target.ID == string(domain.FieldDocuments) {
					documents++
				}
			}
		}
	}
	return types, documents
}
