package golive

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

var allReads = []domain.Scope{domain.ScopeInvoiceRead, domain.ScopeDriverRead, domain.ScopeTrailerRead, domain.ScopeCustomerRead,
	domain.ScopeUserRead, domain.ScopeLoadRead, domain.ScopeTripRead, domain.ScopeWebhookManage, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripUpdate}

// The REST routes and the dashboard's GraphQL operations through the SDK's
// services, with the iterators reaching every item the totals count, amounts
// surviving exactly, and every answer's metadata on its result.
func TestClientRoutes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	ctx := context.Background()
	c := f.client(t, allReads)

	inv, err := c.Invoices.Get(ctx, &haulgraph.InvoiceParams{Number: f.seed.Invoice.Number})
	if err != nil || inv.Number != f.seed.Invoice.Number || inv.Total.Amount == "" {
		t.Fatalf("invoice by number: %+v %v", inv, err)
	}
	meta := inv.LastResponse
	if meta == nil || meta.StatusCode != 200 || meta.Attempts != 1 || len(meta.RequestID) != 32 || meta.RateLimit.Limit <= 0 || meta.RateLimit.Remaining <= 0 {
		t.Errorf("invoice's response metadata: %+v", meta)
	}
	if byID, err := c.Invoices.Get(ctx, &haulgraph.InvoiceParams{ID: f.seed.Invoice.ID.String()}); err != nil || byID.Number != inv.Number {
		t.Fatalf("invoice by id: %v", err)
	}

	params := &haulgraph.StatementListParams{From: f.seed.StatementFrom.Time, To: f.seed.StatementTo.Time, PageSize: 7}
	n, seen := 0, map[int]bool{}
	for s, err := range c.Statements.List(ctx, params) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		seen[s.Number] = true
	}
	if n != f.seed.VisibleStatements || len(seen) != n {
		t.Errorf("statements iterated %d (%d distinct), want %d", n, len(seen), f.seed.VisibleStatements)
	}
	exp, err := c.Statements.Export(ctx, &haulgraph.StatementExportParams{From: params.From, To: params.To})
	if err != nil {
		t.Fatal(err)
	}
	rows, statementsInCSV := 0, map[string]bool{}
	for row, err := range exp.Rows() {
		if err != nil {
			t.Fatal(err)
		}
		if rows++; rows == 1 && row[0] != "StatementNumber" {
			t.Fatalf("csv header %v", row)
		} else if rows > 1 {
			statementsInCSV[row[0]] = true
		}
	}
	exp.Close()
	if len(statementsInCSV) != f.seed.VisibleStatements || !strings.HasPrefix(exp.ContentType, "text/csv") {
		t.Errorf("csv export: %d statements (want %d), %s", len(statementsInCSV), f.seed.VisibleStatements, exp.ContentType)
	}
	num := int(f.seed.Statements[reads.StatementProcessed])
	if s, err := c.Statements.Get(ctx, num); err != nil || s.Number != num || s.Status != haulgraph.StatementProcessed {
		t.Errorf("statement %d: %+v %v", num, s, err)
	}

	first, err := c.Trailers.ListPage(ctx, &haulgraph.TrailerListParams{Limit: 3})
	if err != nil || first.Next == "" || first.Total <= 3 {
		t.Fatalf("trailers: %+v %v", first, err)
	}
	if count(t, c.Trailers.List(ctx, &haulgraph.TrailerListParams{Limit: 3})) != first.Total {
		t.Errorf("trailers iterated short of X-Total-Count %d", first.Total)
	}
	locPage, err := c.Locations.ListPage(ctx, &haulgraph.LocationListParams{PageSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	if locPage.Total <= 5 || count(t, c.Locations.List(ctx, &haulgraph.LocationListParams{PageSize: 5})) != locPage.Total {
		t.Errorf("locations iterated short of %d", locPage.Total)
	}
	userPage, err := c.Users.ListPage(ctx, &haulgraph.UserListParams{PageSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	if userPage.Total == 0 || count(t, c.Users.List(ctx, &haulgraph.UserListParams{PageSize: 4})) != userPage.Total {
		t.Errorf("users iterated short of %d", userPage.Total)
	}

	// An amount with more digits than a float32 holds keeps exactly, in through
	// GraphQL and back through REST, the events API and the board's list.
	const amount = "123456789.01"
	created, err := c.Loads.Create(ctx, &haulgraph.LoadParams{LoadNumber: "SDK-1", SubsidiaryID: f.tenant.SubsidiaryID.String(),
		Rate: haulgraph.NewMoney(amount, haulgraph.USD), Weight: ptr(haulgraph.Decimal("42000.5")),
		Stops: []haulgraph.StopParams{{Type: haulgraph.StopPickup, Name: "A"}, {Type: haulgraph.StopDelivery, Name: "B"}},
		Trips: []haulgraph.TripParams{{TripNumber: "SDK-1-T"}}})
	if err != nil || created.Rate.Amount.String() != amount || *created.Rate.Currency != haulgraph.USD {
		t.Fatalf("create load: %+v %v", created, err)
	}
	covered, err := c.Loads.ChangeStatus(ctx, "SDK-1", &haulgraph.LoadStatusParams{Status: haulgraph.LoadStatusCovered})
	if err != nil || covered.Status != haulgraph.LoadStatusCovered || covered.LastResponse.StatusCode != 200 {
		t.Fatalf("change status: %+v %v", covered, err)
	}
	if _, err := c.Trips.Update(ctx, created.Trips[0].ID, &haulgraph.TripParams{DriverIDs: []string{f.seed.DriverID.String()}}); err != nil {
		t.Fatal(err)
	}
	load, err := c.Loads.Get(ctx, "SDK-1")
	if err != nil || load.Rate.Amount.String() != amount || load.Weight.String() != "42000.5" || load.Status != haulgraph.LoadStatusCovered {
		t.Fatalf("load: %+v %v", load, err)
	}
	var types []string
	waitFor(t, "the events of SDK-1", func() bool {
		types = nil
		for e, err := range c.Events.List(ctx, &haulgraph.EventListParams{LoadNumber: "SDK-1", Limit: 1}) {
			if err != nil {
				t.Fatal(err)
			}
			if e.Data.Load.Rate.Amount.String() != amount || e.Timestamp.IsZero() {
				t.Errorf("event %s: rate %s at %s", e.ID, e.Data.Load.Rate.Amount, e.Timestamp)
			}
			types = append(types, string(e.Type))
		}
		return len(types) >= 4
	})
	if strings.Join(types, " ") != "load.changed load.changed load.status.changed trip.changed" {
		t.Errorf("events of SDK-1, one a page: %v", types)
	}
	var listed bool
	for l, err := range c.Loads.List(ctx, &haulgraph.LoadListParams{Statuses: []haulgraph.LoadStatus{haulgraph.LoadStatusCovered}}) {
		if err != nil {
			t.Fatal(err)
		}
		if l.LoadNumber == "SDK-1" {
			listed = l.Rate.Amount.String() == amount
		}
	}
	if !listed {
		t.Error("the board's list lacks SDK-1 with its exact rate")
	}
	dash, err := c.Statements.Dashboard(ctx, &haulgraph.StatementListParams{From: params.From, To: params.To, PageSize: 3})
	if err != nil || dash.Total != int64(f.seed.VisibleStatements) || len(dash.Items) != 3 || dash.Items[0].Totals.NetIncome.Value().IsZero() || dash.Next != "1" {
		t.Fatalf("dashboard statements: %+v %v", dash, err)
	}

	// Webhook management.
	eventTypes, err := c.Webhooks.EventTypes(ctx)
	if err != nil || len(eventTypes.Items) < 3 {
		t.Fatalf("event types: %v %v", eventTypes, err)
	}
	hook, err := c.Webhooks.Create(ctx, &haulgraph.WebhookParams{Name: "ERP", URL: "https://93.184.216.34/hooks",
		EventTypes: []haulgraph.EventType{haulgraph.EventLoadChanged}, SubsidiaryID: f.tenant.SubsidiaryID.String()})
	if err != nil || hook.Secret == nil || !strings.HasPrefix(*hook.Secret, "whsec_") || hook.State != haulgraph.WebhookPending {
		t.Fatalf("create webhook: %+v %v", hook, err)
	}
	if w, err := c.Webhooks.Update(ctx, hook.ID, &haulgraph.WebhookUpdateParams{Name: ptr("ERP 2")}); err != nil || w.Name != "ERP 2" {
		t.Fatalf("update webhook: %v", err)
	}
	if hooks, err := c.Webhooks.List(ctx); err != nil || len(hooks.Items) != 1 || hooks.Items[0].Secret != nil {
		t.Fatalf("list webhooks: %v %v", hooks, err)
	}
	rotated, err := c.Webhooks.RotateSecret(ctx, hook.ID, &haulgraph.RotateSecretParams{RotationWindow: time.Hour})
	if err != nil || rotated.Secret == nil || *rotated.Secret == *hook.Secret || rotated.RotationEndsAt == nil {
		t.Fatalf("rotate: %+v %v", rotated, err)
	}
	if w, err := c.Webhooks.Disable(ctx, hook.ID); err != nil || w.State != haulgraph.WebhookDisabled {
		t.Fatalf("disable: %+v %v", w, err)
	}
	if _, err := c.Webhooks.ListDeliveriesPage(ctx, hook.ID, nil); err != nil {
		t.Fatal(err)
	}
	if r, err := c.Webhooks.Recover(ctx, hook.ID, &haulgraph.RecoverParams{Since: time.Now().Add(-time.Hour)}); err != nil || r.Requeued != 0 {
		t.Fatalf("recover: %+v %v", r, err)
	}
	if res, err := c.Webhooks.Delete(ctx, hook.ID); err != nil || res.StatusCode != 204 {
		t.Fatalf("delete: %+v %v", res, err)
	}
	if _, err := c.Webhooks.Get(ctx, hook.ID); !haulgraph.IsNotFound(err) {
		t.Fatalf("deleted webhook: %v", err)
	}

	// A document up and down again through its signed link.
	pdf := "%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"
	doc, err := c.Documents.Upload(ctx, &haulgraph.UploadDocumentParams{Parent: haulgraph.DocumentForLoad, ParentID: "SDK-1",
		DocumentType: "Bill of Lading", FileName: "bol.pdf", File: strings.NewReader(pdf)})
	if err != nil || doc.AttachmentSize != int64(len(pdf)) {
		t.Fatalf("upload: %+v %v", doc, err)
	}
	var docs struct {
		Load struct {
			Documents []struct {
				DownloadURL string `json:"downloadUrl"`
			}
		} `json:"load"`
	}
	if _, err := c.GraphQL(ctx, `query($n: String!) { load(loadNumber: $n) { documents { downloadUrl } } }`, map[string]any{"n": "SDK-1"}, &docs); err != nil || len(docs.Load.Documents) != 1 {
		t.Fatalf("documents: %+v %v", docs, err)
	}
	dl, err := c.Documents.Download(ctx, docs.Load.Documents[0].DownloadURL)
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	if got, err := io.ReadAll(dl); err != nil || string(got) != pdf || dl.ContentType != "application/pdf" {
		t.Errorf("download: %q %s %v", got, dl.ContentType, err)
	}
}

func ptr[T any](v T) *T { return &v }

// count runs an iterator to its end.
func count[T any](t *testing.T, seq func(func(T, error) bool)) int64 {
	t.Helper()
	n := int64(0)
	for _, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	return n
}
