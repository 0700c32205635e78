package haulgraph_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/ratelimit"
	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

var allReads = []domain.Scope{domain.ScopeInvoiceRead, domain.ScopeDriverRead, domain.ScopeTrailerRead, domain.ScopeCustomerRead,
	domain.ScopeUserRead, domain.ScopeLoadRead, domain.ScopeTripRead, domain.ScopeWebhookManage, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeTripUpdate}

// The REST routes and the dashboard's GraphQL operations through the SDK,
// with the iterators reaching every item the totals count and amounts
// surviving exactly.
func TestClientRoutes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	ctx := context.Background()
	c := f.client(t, allReads, haulgraph.WithTimeout(30*time.Second))

	inv, err := c.GetInvoice(ctx, haulgraph.GetInvoiceParams{InvoiceNumber: &f.seed.Invoice.Number})
	if err != nil || inv.Number != f.seed.Invoice.Number {
		t.Fatalf("invoice by number: %+v %v", inv, err)
	}
	if byID, err := c.GetInvoice(ctx, haulgraph.GetInvoiceParams{Id: haulgraph.Ptr(f.seed.Invoice.ID)}); err != nil || byID.Number != inv.Number {
		t.Fatalf("invoice by id: %v", err)
	}

	search := haulgraph.StatementSearch{PageSize: 7}
	search.StatementDateRange.Start = f.seed.StatementFrom.Time
	search.StatementDateRange.End = f.seed.StatementTo.Time
	n, seen := 0, map[int32]bool{}
	for s, err := range c.Statements(ctx, search) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		seen[s.Number] = true
	}
	if n != f.seed.VisibleStatements || len(seen) != n {
		t.Errorf("statements iterated %d (%d distinct), want %d", n, len(seen), f.seed.VisibleStatements)
	}
	var p haulgraph.ExportDriverSettlementStatementsParams
	p.Start.Time, p.End.Time = f.seed.StatementFrom.Time, f.seed.StatementTo.Time
	exp, err := c.ExportStatements(ctx, p)
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
	num := f.seed.Statements[reads.StatementProcessed]
	if s, err := c.GetStatement(ctx, num); err != nil || s.Number != num {
		t.Errorf("statement %d: %v", num, err)
	}

	first, err := c.ListTrailers(ctx, haulgraph.ListTrailersParams{Limit: haulgraph.Ptr[int32](3)})
	if err != nil || first.Next == "" || first.Total <= 3 {
		t.Fatalf("trailers: %+v %v", first, err)
	}
	trailers := 0
	for _, err := range c.Trailers(ctx, haulgraph.ListTrailersParams{Limit: haulgraph.Ptr[int32](3)}) {
		if err != nil {
			t.Fatal(err)
		}
		trailers++
	}
	if int64(trailers) != first.Total {
		t.Errorf("trailers iterated %d, X-Total-Count %d", trailers, first.Total)
	}

	locPage, err := c.SearchLocations(ctx, haulgraph.LocationSearch{PageSize: 5})
	if err != nil {
		t.Fatal(err)
	}
	locations := 0
	for _, err := range c.Locations(ctx, haulgraph.LocationSearch{PageSize: 5}) {
		if err != nil {
			t.Fatal(err)
		}
		locations++
	}
	if int64(locations) != locPage.Total {
		t.Errorf("locations iterated %d, total %d", locations, locPage.Total)
	}
	userPage, err := c.SearchUsers(ctx, haulgraph.UserSearch{PageSize: 4})
	if err != nil {
		t.Fatal(err)
	}
	users := 0
	for _, err := range c.Users(ctx, haulgraph.UserSearch{PageSize: 4}) {
		if err != nil {
			t.Fatal(err)
		}
		users++
	}
	if int64(users) != userPage.Total || users == 0 {
		t.Errorf("users iterated %d, total %d", users, userPage.Total)
	}

	// An amount with more digits than a float32 holds, in through GraphQL
	// and back through REST, the events API and the board's list.
	const amount = "123456789.01"
	created, err := c.CreateLoad(ctx, haulgraph.CreateLoadInput{LoadNumber: "SDK-1", SubsidiaryID: f.tenant.SubsidiaryID.String(),
		Rate: &haulgraph.MoneyInput{Amount: decimal.RequireFromString(amount)}, Weight: haulgraph.Ptr(decimal.RequireFromString("42000.5")),
		Stops: []haulgraph.StopInput{{Type: "Pickup", Name: "A"}, {Type: "Delivery", Name: "B"}}, Trips: []haulgraph.TripInput{{TripNumber: "SDK-1-T"}}})
	if err != nil || created.Rate.Amount.String() != amount {
		t.Fatalf("createLoad: %+v %v", created, err)
	}
	if _, err := c.ChangeLoadStatus(ctx, "SDK-1", "Covered"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTrip(ctx, created.Trips[0].ID, haulgraph.UpdateTripInput{DriverIDs: []string{f.seed.DriverID.String()}}); err != nil {
		t.Fatal(err)
	}
	load, err := c.GetLoad(ctx, "SDK-1")
	if err != nil || load.Rate.Amount.String() != amount || load.Weight.String() != "42000.5" || load.Status != "Covered" {
		t.Fatalf("load: %+v %v", load, err)
	}
	var types []string
	waitFor(t, "the events of SDK-1", func() bool {
		types = nil
		for e, err := range c.Events(ctx, haulgraph.ListEventsParams{LoadNumber: haulgraph.Ptr("SDK-1"), Limit: haulgraph.Ptr[int32](1)}) {
			if err != nil {
				t.Fatal(err)
			}
			if e.Data.Load.Rate.Amount.String() != amount {
				t.Errorf("event rate %s", e.Data.Load.Rate.Amount)
			}
			types = append(types, string(e.Type))
		}
		return len(types) >= 4
	})
	if strings.Join(types, " ") != "load.changed load.changed load.status.changed trip.changed" {
		t.Errorf("events of SDK-1, one a page: %v", types)
	}
	var listed bool
	for l, err := range c.Loads(ctx, haulgraph.LoadFilter{Statuses: []string{"Covered"}}, 50) {
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
	dash, err := c.DashboardStatements(ctx, haulgraph.StatementFilter{StatementDateRange: haulgraph.DateTimeRange{
		Start: search.StatementDateRange.Start.Format(time.RFC3339), End: search.StatementDateRange.End.Format(time.RFC3339)}}, 0, 3)
	if err != nil || dash.Total != f.seed.VisibleStatements || len(dash.Items) != 3 || dash.Items[0].Totals.NetIncome.Amount.IsZero() {
		t.Fatalf("dashboard statements: %+v %v", dash, err)
	}

	// Webhook management.
	types2, err := c.ListWebhookEventTypes(ctx)
	if err != nil || len(types2) < 3 {
		t.Fatalf("event types: %v %v", types2, err)
	}
	hook, err := c.CreateWebhook(ctx, haulgraph.WebhookCreate{Name: "ERP", Url: "https://93.184.216.34/hooks",
		EventTypes: []haulgraph.EventType{"load.changed"}, SubsidiaryId: f.tenant.SubsidiaryID})
	if err != nil || hook.Secret == nil || !strings.HasPrefix(*hook.Secret, "whsec_") {
		t.Fatalf("create webhook: %+v %v", hook, err)
	}
	id := hook.Id.String()
	if w, err := c.UpdateWebhook(ctx, id, haulgraph.WebhookUpdate{Name: haulgraph.Ptr("ERP 2")}); err != nil || w.Name != "ERP 2" {
		t.Fatalf("update webhook: %v", err)
	}
	if hooks, err := c.ListWebhooks(ctx); err != nil || len(hooks) != 1 {
		t.Fatalf("list webhooks: %v %v", hooks, err)
	}
	rotated, err := c.RotateWebhookSecret(ctx, id, &haulgraph.RotateSecret{RotationWindow: haulgraph.Ptr[int32](0)})
	if err != nil || rotated.Secret == nil || *rotated.Secret == *hook.Secret {
		t.Fatalf("rotate: %v", err)
	}
	if w, err := c.DisableWebhook(ctx, id); err != nil || w.State != haulgraph.WebhookStateDisabled {
		t.Fatalf("disable: %+v %v", w, err)
	}
	if _, err := c.ListWebhookDeliveries(ctx, id, haulgraph.ListWebhookDeliveriesParams{}); err != nil {
		t.Fatal(err)
	}
	if n, err := c.RecoverWebhookDeliveries(ctx, id, haulgraph.Recover{Since: time.Now().Add(-time.Hour)}); err != nil || n != 0 {
		t.Fatalf("recover: %d %v", n, err)
	}
	if err := c.DeleteWebhook(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetWebhook(ctx, id); !haulgraph.IsNotFound(err) {
		t.Fatalf("deleted webhook: %v", err)
	}

	// A document up and down again through its signed link.
	pdf := []byte("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n")
	doc, err := c.UploadDocument(ctx, haulgraph.DocumentForLoad, "SDK-1", "Bill of Lading", "bol.pdf", strings.NewReader(string(pdf)))
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
	if err := c.GraphQL(ctx, `query($n: String!) { load(loadNumber: $n) { documents { downloadUrl } } }`, map[string]any{"n": "SDK-1"}, &docs); err != nil || len(docs.Load.Documents) != 1 {
		t.Fatalf("documents: %+v %v", docs, err)
	}
	dl, err := c.DownloadDocument(ctx, docs.Load.Documents[0].DownloadURL)
	if err != nil {
		t.Fatal(err)
	}
	defer dl.Close()
	if got, err := io.ReadAll(dl); err != nil || string(got) != string(pdf) || dl.ContentType != "application/pdf" {
		t.Errorf("download: %q %s %v", got, dl.ContentType, err)
	}
}

// Refusals are typed: the problem document's fields, GraphQL's code and
// fields, and the token endpoint's error.
func TestErrorsAreTyped(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	tenant := apptest.NewTenant(t, srv, "errs")
	ctx := context.Background()
	f := &fixture{srv: srv, tenant: tenant}
	id, secret := f.credentials(t, domain.ScopeDriverRead, domain.ScopeLoadUpdate)
	c, err := haulgraph.New(haulgraph.WithBaseURL(srv.URL), haulgraph.WithClientCredentials(id, secret))
	if err != nil {
		t.Fatal(err)
	}

	_, err = c.GetStatement(ctx, 999999)
	var e *haulgraph.Error
	if !errors.As(err, &e) || e.StatusCode != 404 || e.Title == "" || e.Type == "" || e.TraceID == "" || !haulgraph.IsNotFound(err) {
		t.Errorf("unknown statement: %#v", err)
	}
	_, err = c.SearchStatements(ctx, haulgraph.StatementSearch{PageSize: 0})
	if !errors.As(err, &e) || e.StatusCode != 400 || len(e.Errors) == 0 {
		t.Errorf("bad search: %#v", err)
	}
	_, err = c.GetLoad(ctx, "NONE")
	if !errors.As(err, &e) || e.StatusCode != 403 {
		t.Errorf("a load without load:read: %#v", err)
	}
	_, err = c.ChangeLoadStatus(ctx, "NONE", "Covered")
	if !errors.As(err, &e) || e.Code == "" || e.Detail == "" {
		t.Errorf("GraphQL refusal: %#v", err)
	}

	// A token revoked behind the client's back is refused (401); the
	// client then fetches another and the call goes through.
	tok1, err := c.Token(ctx)
	if err != nil {
		t.Fatal(err)
	}
	revoke, _ := http.NewRequest("POST", srv.URL+"/oauth/revoke", strings.NewReader("token="+tok1.AccessToken))
	revoke.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	revoke.SetBasicAuth(id, secret)
	if res, err := http.DefaultClient.Do(revoke); err != nil || res.StatusCode != 200 {
		t.Fatalf("revoke: %v %v", res, err)
	}
	waitFor(t, "the revoked token refused", func() bool {
		req, _ := http.NewRequest("GET", srv.URL+"/api/p/v1/driver-settlement-statements/1", nil)
		req.Header.Set("Authorization", "Bearer "+tok1.AccessToken)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode == 401
	})
	if _, err := c.GetStatement(ctx, 1); !haulgraph.IsNotFound(err) {
		t.Errorf("after the token was revoked: %v", err)
	}
	tok2, err := c.Token(ctx)
	if err != nil || tok2.AccessToken == tok1.AccessToken {
		t.Fatalf("the refused token is still in use: %v", err)
	}
	// RevokeToken of the token in use: the next call fetches another.
	if err := c.RevokeToken(ctx, tok2.AccessToken); err != nil {
		t.Fatal(err)
	}
	if tok3, err := c.Token(ctx); err != nil || tok3.AccessToken == tok2.AccessToken {
		t.Fatalf("the revoked token is still in use: %v", err)
	}

	bad, err := haulgraph.New(haulgraph.WithBaseURL(srv.URL), haulgraph.WithClientCredentials("hgc_nobody", "wrong"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = bad.GetStatement(ctx, 1)
	if !errors.As(err, &e) || e.StatusCode != 401 || e.Code != "invalid_client" {
		t.Errorf("bad credentials: %#v", err)
	}
}

// clock is the rate limiter's and the SDK's shared time: the SDK's
// sleeper moves it instead of waiting.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// A 429 is retried after its Retry-After, waited on the injected sleeper;
// a policy of one attempt returns it with its fields.
func TestRetryHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	clk := &clock{now: time.Now()}
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.ClientRateLimit, c.TenantRateLimit, c.RateLimitClock = 1, 1000, clk.Now
	}})
	f := &fixture{srv: srv, tenant: apptest.NewTenant(t, srv, "retry")}
	ctx := context.Background()
	var waits []time.Duration
	var retries []int
	c := f.client(t, []domain.Scope{domain.ScopeDriverRead},
		haulgraph.WithSleeper(func(ctx context.Context, d time.Duration) error { waits = append(waits, d); clk.advance(d); return nil }),
		haulgraph.WithRetryPolicy(haulgraph.RetryPolicy{MaxAttempts: 3, MaxWait: time.Minute,
			OnRetry: func(_ int, e *haulgraph.Error, _ time.Duration) { retries = append(retries, e.StatusCode) }}))
	for range 3 { // one request a second: the second and third wait
		if _, err := c.ListWebhookEventTypes(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if len(waits) != 2 || waits[0] != time.Second || waits[1] != time.Second || len(retries) != 2 || retries[0] != 429 {
		t.Errorf("waits %v retries %v, want two waits of 1s after 429s", waits, retries)
	}

	once := f.client(t, []domain.Scope{domain.ScopeDriverRead}, haulgraph.WithRetryPolicy(haulgraph.RetryPolicy{MaxAttempts: 1}),
		haulgraph.WithSleeper(func(context.Context, time.Duration) error { t.Error("slept with one attempt"); return nil }))
	_, _ = once.ListWebhookEventTypes(ctx)
	_, err := once.ListWebhookEventTypes(ctx)
	var e *haulgraph.Error
	if !errors.As(err, &e) || e.StatusCode != 429 || e.RetryAfter != time.Second || !haulgraph.IsRateLimited(err) || e.Header.Get("RateLimit-Limit") == "" {
		t.Errorf("one attempt: %#v", err)
	}
}

// while broken is set: the API answers 503 with Retry-After.
type brokenStore struct {
	ratelimit.Store
	broken *atomic.Bool
}

func (s brokenStore) Lease(ctx context.Context, key string, l ratelimit.Limit, want, giveBack int, now time.Time) (int, float64, error) {
	if s.broken.Load() && strings.HasPrefix(key, "client:") {
		return 0, 0, errors.New("bucket store unreachable")
	}
	return s.Store.Lease(ctx, key, l, want, giveBack, now)
}

// A 503 is retried for a request that can be repeated safely, and returned
// at once for one that cannot (the API has no idempotency keys).
func TestRetry503OnlyWhenRepeatable(t *testing.T) {
	t.Parallel()
	var broken atomic.Bool
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.RateLimitStore = func(s ratelimit.Store) ratelimit.Store { return brokenStore{s, &broken} }
	}})
	f := &fixture{srv: srv, tenant: apptest.NewTenant(t, srv, "unavailable")}
	ctx := context.Background()
	var waits []time.Duration
	c := f.client(t, []domain.Scope{domain.ScopeWebhookManage},
		haulgraph.WithSleeper(func(_ context.Context, d time.Duration) error {
			waits = append(waits, d)
			broken.Store(false) // the store is back by the next attempt
			return nil
		}))
	if _, err := c.Token(ctx); err != nil {
		t.Fatal(err)
	}
	broken.Store(true)
	if _, err := c.ListWebhooks(ctx); err != nil || len(waits) != 1 || waits[0] <= 0 {
		t.Fatalf("a read through a 503: %v, waits %v", err, waits)
	}
	// Another client: its bucket has leased nothing yet, so the store is
	// asked (a client's bucket leases tokens ahead).
	c2 := f.client(t, []domain.Scope{domain.ScopeWebhookManage}, haulgraph.WithSleeper(func(_ context.Context, d time.Duration) error {
		waits = append(waits, d)
		return nil
	}))
	if _, err := c2.Token(ctx); err != nil {
		t.Fatal(err)
	}
	broken.Store(true)
	_, err := c2.CreateWebhook(ctx, haulgraph.WebhookCreate{Name: "x", Url: "https://93.184.216.34/h",
		EventTypes: []haulgraph.EventType{"load.changed"}, SubsidiaryId: f.tenant.SubsidiaryID})
	var e *haulgraph.Error
	if !errors.As(err, &e) || e.StatusCode != 503 || e.RetryAfter <= 0 || len(waits) != 1 {
		t.Errorf("a create through a 503: %#v, waits %v", err, waits)
	}
}
