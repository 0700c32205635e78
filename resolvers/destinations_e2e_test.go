package resolvers_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/brokertest"
	"github.com/haulgraph/haulgraph/domain"
)

// A JetStream destination created through GraphQL gets the events of real
// load writes on <prefix>.<tenant>.<type>.<load>; REST's event-destination
// list shows it beside the webhooks, the webhook list and field do not.
func TestLoadWritesReachJetStreamDestination(t *testing.T) {
	t.Parallel()
	broker, err := brokertest.NATS(t.TempDir())
	if err == nil {
		err = broker.Start(10 * time.Second)
	}
	if err != nil {
		t.Fatal(err)
	}
	defer broker.Close()
	nc, err := nats.Connect("nats://" + broker.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	stream, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "EVENTS", Subjects: []string{"erp.>"}})
	if err != nil {
		t.Fatal(err)
	}

	srv := apptest.Start(t, apptest.Options{})
	acme := apptest.NewTenant(t, srv, "acme")
	manage := srv.Token(t, acme, domain.ScopeWebhookManage)
	write := srv.Token(t, acme, domain.ScopeLoadCreate, domain.ScopeLoadUpdate)
	// Well-formed input the broker refuses is a 422 naming the field (REST)
	// and UNPROCESSABLE (GraphQL); malformed input stays a 400.
	create := func(body string) (int, string, map[string][]string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/p/v1/event-destinations", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+manage)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var p struct{ Errors map[string][]string }
		_ = json.NewDecoder(resp.Body).Decode(&p)
		return resp.StatusCode, resp.Header.Get("Content-Type"), p.Errors
	}
	dest := func(url, prefix string) string {
		return `{"Type":"nats-jetstream","Name":"ERP","Url":"` + url + `","SubjectPrefix":"` + prefix + `","EventTypes":["load.changed"],"SubsidiaryId":"` + acme.SubsidiaryID.String() + `"}`
	}
	if code, ct, errs := create(dest("nats://"+broker.Addr, "nostream")); code != http.StatusUnprocessableEntity || ct != "application/problem+json" || len(errs["SubjectPrefix"]) != 1 {
		t.Fatalf("no stream: %d %s %v", code, ct, errs)
	}
	if code, _, errs := create(dest("nats://"+broker.Addr+"/%zz", "erp")); code != http.StatusBadRequest || len(errs["Url"]) != 1 {
		t.Fatalf("malformed url: %d %v", code, errs)
	}
	refused := gql(t, srv, manage, `mutation($in: CreateEventDestinationInput!) { createEventDestination(input: $in) { secret } }`,
		map[string]any{"in": map[string]any{"type": "NATS_JETSTREAM", "name": "ERP", "url": "nats://" + broker.Addr, "subjectPrefix": "nostream",
			"subsidiaryId": acme.SubsidiaryID, "eventTypes": []string{"load.changed"}}})
	if len(refused.Errors) != 1 || refused.Errors[0].Extensions.Code != "UNPROCESSABLE" || len(refused.Errors[0].Extensions.Fields["subjectPrefix"]) != 1 {
		t.Fatalf("GraphQL no stream: %+v", refused.Errors)
	}

	created := field[struct {
		Secret      string
		Destination struct{ ID, Type, State, URL, SubjectPrefix string }
	}](t, gql(t, srv, manage, `mutation($in: CreateEventDestinationInput!) {
		createEventDestination(input: $in) { secret destination { id type state url subjectPrefix } } }`,
		map[string]any{"in": map[string]any{"type": "NATS_JETSTREAM", "name": "ERP", "url": "nats://" + broker.Addr, "subjectPrefix": "erp",
			"subsidiaryId": acme.SubsidiaryID, "eventTypes": []string{"load.changed", "load.status.changed"}}}), "createEventDestination")
	if d := created.Destination; d.Type != "NATS_JETSTREAM" || d.State != "Active" || d.SubjectPrefix != "erp" || created.Secret == "" {
		t.Fatalf("created %+v", created)
	}

	stops := []map[string]any{{"type": "Pickup", "name": "A"}, {"type": "Delivery", "name": "B"}}
	field[map[string]any](t, gql(t, srv, write, `mutation($in: CreateLoadInput!) { createLoad(input: $in) { loadNumber } }`,
		map[string]any{"in": map[string]any{"loadNumber": "W.1", "subsidiaryId": acme.SubsidiaryID, "stops": stops}}), "createLoad")
	field[map[string]any](t, gql(t, srv, write, `mutation { changeLoadStatus(loadNumber: "W.1", status: Covered) { status } }`, nil), "changeLoadStatus")

	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	for len(subjects) < 3 {
		m, err := cons.Next(jetstream.FetchMaxWait(20 * time.Second))
		if err != nil {
			t.Fatalf("after %v: %v", subjects, err)
		}
		subjects = append(subjects, m.Subject())
	}
	want := []string{"erp.acme.load%2Echanged.W%2E1", "erp.acme.load%2Echanged.W%2E1", "erp.acme.load%2Estatus%2Echanged.W%2E1"}
	for i := range want {
		if subjects[i] != want[i] {
			t.Fatalf("subjects %v, want %v", subjects, want)
		}
	}

	list := func(path string) []map[string]any {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/p/v1"+path, nil)
		req.Header.Set("Authorization", "Bearer "+manage)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out []map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		return out
	}
	if l := list("/event-destinations"); len(l) != 1 || l[0]["Type"] != "nats-jetstream" || l[0]["SubjectPrefix"] != "erp" {
		t.Fatalf("event destinations %v", l)
	}
	if l := list("/webhooks"); len(l) != 0 {
		t.Fatalf("webhooks %v", l)
	}
	if w := gql(t, srv, manage, `query($id: ID!) { webhook(id: $id) { id } }`, map[string]any{"id": created.Destination.ID}); string(w.Data["webhook"]) != "null" || len(w.Errors) != 0 {
		t.Fatalf("webhook field of a destination: %s", w.Data)
	}
}
