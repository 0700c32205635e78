package rest_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// whEnv is one instance for the REST webhook management tests: every
// exchange goes through call, which validates it against the OpenAPI
// document.
type whEnv struct {
	srv          *apptest.Server
	oas          *openAPIChecker
	acme, globex apptest.Tenant
	manage       string // acme, webhook:manage
}

func newWhEnv(t *testing.T, opts apptest.Options) *whEnv {
	t.Helper()
	srv := apptest.Start(t, opts)
	e := &whEnv{srv: srv, oas: newOpenAPIChecker(t, srv.URL), acme: apptest.NewTenant(t, srv, "acme"), globex: apptest.NewTenant(t, srv, "globex")}
	e.manage = srv.Token(t, e.acme, domain.ScopeWebhookManage)
	return e
}

// call sends one request (a JSON body unless ""), validates request and
// answer against the OpenAPI document and returns the answer.
func (e *whEnv) call(t *testing.T, method, path, token, body string) (*http.Response, []byte) {
	t.Helper()
	h := map[string]string{}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	ct := ""
	if body != "" {
		ct = "application/json"
		h["Content-Type"] = ct
	}
	res, b := testkit.Request(t, method, e.srv.URL+path, h, body)
	e.oas.check(t, method, e.srv.URL+path, ct, body, res, b)
	if res.StatusCode < 300 && body != "" {
		e.oas.checkRequest(t, method, e.srv.URL+path, ct, body)
	}
	return res, b
}

// want asserts status and application/json and decodes the body into v.
func want(t *testing.T, res *http.Response, body []byte, status int, v any) {
	t.Helper()
	if res.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d; body %s", res.Request.Method, res.Request.URL.Path, res.StatusCode, status, body)
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("Content-Type %q", ct)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
}

type restWebhook struct {
	Id, Name, Url, SubsidiaryId, State, StateLabel, StateReason string
	EventTypes                                                  []string
	IncludePreviousAttributes                                   bool
	RotationEndsAt                                              *time.Time
	CreatedAt                                                   time.Time
	Secret                                                      *string
}

type restDelivery struct {
	Id, EventId, EventType, Status string
	Attempt                        int
	Attempts                       []struct {
		Id         string
		Attempt    int
		StatusCode *int
		Error      string
	}
}

// create makes a webhook of acme's subsidiary for url and returns it.
func (e *whEnv) create(t *testing.T, name, url string) restWebhook {
	t.Helper()
	var w restWebhook
	res, body := e.call(t, "POST", "/api/p/v1/webhooks", e.manage, `{"Name":"`+name+`","Url":"`+url+`","EventTypes":["load.changed"],"SubsidiaryId":"`+e.acme.SubsidiaryID.String()+`"}`)
	want(t, res, body, http.StatusCreated, &w)
	return w
}

func TestWebhookManagementREST(t *testing.T) {
	e := newWhEnv(t, apptest.Options{})
	rc := newReceiver(t)
	// A receiver that answers the challenge wrongly fails verification.
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(map[string]string{"challenge": "wrong"})
	}))
	t.Cleanup(wrong.Close)
	sub := e.acme.SubsidiaryID.String()

	// Create: field-level refusals first.
	for _, c := range []struct {
		body   string
		fields []string
	}{
		{`{}`, []string{"Name", "Url", "EventTypes", "SubsidiaryId"}},
		{`{"Name":"x","Url":"ftp://example.com","EventTypes":["load.changed","load.deleted"],"SubsidiaryId":"` + sub + `"}`, []string{"Url", "EventTypes"}},
		{`{"Name":"x","Url":"` + rc.URL + `","EventTypes":["load.changed"],"SubsidiaryId":"` + e.globex.SubsidiaryID.String() + `"}`, []string{"SubsidiaryId"}},
		{`{"Name":"x","Url":"` + rc.URL + `","EventTypes":["load.changed"],"SubsidiaryId":"main"}`, []string{"SubsidiaryId"}},
		{`{"Name":"x","Url":"https://10.0.0.1/hook","EventTypes":[],"SubsidiaryId":"` + sub + `"}`, []string{"Url", "EventTypes"}},
		{`{"Name":"x","Color":"red"}`, []string{"Color"}},
		{`{"Name":`, []string{"body"}},
	} {
		res, body := e.call(t, "POST", "/api/p/v1/webhooks", e.manage, c.body)
		for _, f := range c.fields {
			wantFieldError(t, res, body, f)
		}
	}
	res, body := testkit.Request(t, "POST", e.srv.URL+"/api/p/v1/webhooks", map[string]string{"Authorization": "Bearer " + e.manage, "Content-Type": "text/plain"}, "{}")
	wantProblem(t, res, body, http.StatusUnsupportedMediaType)

	// Create: 201, Location, the secret once, Pending.
	var created restWebhook
	res, body = e.call(t, "POST", "/api/p/v1/webhooks", e.manage,
		`{"Name":"ERP","Url":"`+rc.URL+`/hook","EventTypes":["load.changed"],"SubsidiaryId":"`+sub+`","IncludePreviousAttributes":false}`)
	want(t, res, body, http.StatusCreated, &created)
	if created.Secret == nil || !strings.HasPrefix(*created.Secret, "whsec_") || created.State != "Pending" || created.SubsidiaryId != sub ||
		res.Header.Get("Location") != "/api/p/v1/webhooks/"+created.Id || res.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("created %+v, headers %v", created, res.Header)
	}
	id := created.Id
	path := "/api/p/v1/webhooks/" + id

	// Reads never show the secret; every version answers.
	for _, v := range versions {
		var list []restWebhook
		res, body = e.call(t, "GET", "/api/p/"+v+"/webhooks", e.manage, "")
		want(t, res, body, http.StatusOK, &list)
		if len(list) != 1 || list[0].Id != id || list[0].Secret != nil || strings.Contains(string(body), "whsec_") {
			t.Fatalf("%s list %s", v, body)
		}
	}
	var got restWebhook
	res, body = e.call(t, "GET", path, e.manage, "")
	want(t, res, body, http.StatusOK, &got)
	if got.Name != "ERP" || got.Url != rc.URL+"/hook" || got.Secret != nil || !got.CreatedAt.Equal(created.CreatedAt) {
		t.Fatalf("get %s", body)
	}
	res, body = e.call(t, "GET", "/api/p/v1/webhooks/"+uuid.NewString(), e.manage, "")
	wantProblem(t, res, body, http.StatusNotFound)
	// A malformed id is no id at all: the document's format uuid, a 400.
	res, body = e.call(t, "GET", "/api/p/v1/webhooks/not-an-id", e.manage, "")
	wantFieldError(t, res, body, "id")
	res, body = e.call(t, "GET", "/api/p/v3/webhooks", e.manage, "")
	wantProblem(t, res, body, http.StatusNotFound)

	// Enable runs the verification and answers the resulting state.
	var enabled restWebhook
	res, body = e.call(t, "POST", path+"/enable", e.manage, "")
	want(t, res, body, http.StatusOK, &enabled)
	if enabled.State != "Active" || enabled.StateLabel != "Connected" {
		t.Fatalf("enabled %s", body)
	}
	bad := e.create(t, "wrong answer", wrong.URL)
	var failed restWebhook
	res, body = e.call(t, "POST", "/api/p/v2.0/webhooks/"+bad.Id+"/enable", e.manage, "")
	want(t, res, body, http.StatusOK, &failed)
	if failed.State != "FailedVerification" || failed.StateLabel != "Failed to verify" || failed.StateReason == "" {
		t.Fatalf("enable against a wrong answer: %s", body)
	}

	// PATCH changes only what is sent; the subsidiary is fixed.
	var patched restWebhook
	res, body = e.call(t, "PATCH", path, e.manage, `{"EventTypes":["load.changed","trip.changed"],"IncludePreviousAttributes":true}`)
	want(t, res, body, http.StatusOK, &patched)
	if patched.State != "Active" || !patched.IncludePreviousAttributes || len(patched.EventTypes) != 2 || patched.Name != "ERP" {
		t.Fatalf("patched %s", body)
	}
	for _, c := range []struct{ body, field string }{
		{`{"SubsidiaryId":"` + sub + `"}`, "SubsidiaryId"},
		{`{"Url":"ftp://example.com"}`, "Url"},
		{`{"EventTypes":[]}`, "EventTypes"},
		{`{"Name":""}`, "Name"},
		{`{"IncludePreviousAttributes":"yes"}`, "IncludePreviousAttributes"},
	} {
		res, body = e.call(t, "PATCH", path, e.manage, c.body)
		wantFieldError(t, res, body, c.field)
	}
	// A URL change on an Active webhook re-verifies: here it fails.
	var moved restWebhook
	other := e.create(t, "moves", rc.URL+"/other")
	res, body = e.call(t, "POST", "/api/p/v1/webhooks/"+other.Id+"/enable", e.manage, "")
	want(t, res, body, http.StatusOK, &moved)
	res, body = e.call(t, "PATCH", "/api/p/v1/webhooks/"+other.Id, e.manage, `{"Url":"`+wrong.URL+`"}`)
	want(t, res, body, http.StatusOK, &moved)
	if moved.State != "FailedVerification" || moved.Url != wrong.URL {
		t.Fatalf("URL change re-verification: %s", body)
	}

	// Rotate the secret: shown once, with the rotation window.
	var rotated restWebhook
	res, body = e.call(t, "POST", path+"/rotate-secret", e.manage, "")
	want(t, res, body, http.StatusOK, &rotated)
	if rotated.Secret == nil || *rotated.Secret == *created.Secret || rotated.RotationEndsAt == nil ||
		rotated.RotationEndsAt.Sub(time.Now()) < 23*time.Hour || rotated.State != "Active" {
		t.Fatalf("rotated %s", body)
	}
	res, body = e.call(t, "POST", path+"/rotate-secret", e.manage, `{"RotationWindow":0}`)
	want(t, res, body, http.StatusOK, &rotated)
	if rotated.RotationEndsAt != nil {
		t.Fatalf("window 0: %s", body)
	}
	secret := *rotated.Secret
	for _, b := range []string{`{"RotationWindow":604801}`, `{"RotationWindow":-1}`, `{"RotationWindow":"1h"}`} {
		res, body = e.call(t, "POST", path+"/rotate-secret", e.manage, b)
		wantFieldError(t, res, body, "RotationWindow")
	}

	// Deliveries: three delivered, then the endpoint answers 410 Gone: that
	// delivery fails and the webhook is disabled.
	emit := func() string {
		id := uuid.NewString() + "-0"
		execSQL(t, e.srv, `INSERT INTO events (id, tenant_id, subsidiary_id, type, subject_id, payload) VALUES (?, ?, ?, 'load.changed', ?, ?)`,
			id, e.acme.ID, e.acme.SubsidiaryID, uuid.New(), loadChangedEnvelope(t, id, e.acme.SubsidiaryID))
		return id
	}
	deliveries := func(query string) ([]restDelivery, *http.Response) {
		var ds []restDelivery
		res, body := e.call(t, "GET", path+"/deliveries"+query, e.manage, "")
		want(t, res, body, http.StatusOK, &ds)
		return ds, res
	}
	var events []string
	for range 3 {
		events = append(events, emit())
		rc.collect(t, 1, map[string]string{"/hook": secret})
	}
	rc.answer(http.StatusGone)
	events = append(events, emit())
	rc.collect(t, 1, map[string]string{"/hook": secret})
	// The receiver has each request before its attempt is recorded: wait
	// until all four are, each with its one attempt.
	eventually(t, "four finished deliveries", func() bool {
		ds, _ := deliveries("?limit=100")
		if len(ds) != 4 || ds[0].Status != "Failed" {
			return false
		}
		for i, d := range ds {
			if len(d.Attempts) != 1 || (i > 0 && d.Status != "Delivered") {
				return false
			}
		}
		return true
	})
	res, body = e.call(t, "GET", path, e.manage, "")
	want(t, res, body, http.StatusOK, &got)
	if got.State != "Disabled" {
		t.Fatalf("after 410 Gone: %s", body)
	}

	// Paged newest first, with attempts, Link rel="next".
	var seen []restDelivery
	page, res := deliveries("?limit=3")
	seen = append(seen, page...)
	m := linkNext.FindStringSubmatch(res.Header.Get("Link"))
	if len(page) != 3 || m == nil {
		t.Fatalf("first page %+v, Link %q", page, res.Header.Get("Link"))
	}
	u, _ := url.Parse(m[1])
	page, res = deliveries("?" + u.RawQuery)
	seen = append(seen, page...)
	if len(page) != 1 || res.Header.Get("Link") != "" {
		t.Fatalf("second page %+v, Link %q", page, res.Header.Get("Link"))
	}
	for i, d := range seen {
		if d.EventId != events[3-i] || d.EventType != "load.changed" || len(d.Attempts) != 1 || d.Attempts[0].StatusCode == nil {
			t.Fatalf("delivery %d: %+v (events %v)", i, d, events)
		}
	}
	if *seen[0].Attempts[0].StatusCode != http.StatusGone || *seen[1].Attempts[0].StatusCode != http.StatusOK {
		t.Fatalf("attempt statuses %+v", seen)
	}
	for _, q := range []string{"?limit=0", "?limit=101", "?limit=x", "?after=forged"} {
		res, body = e.call(t, "GET", path+"/deliveries"+q, e.manage, "")
		wantFieldError(t, res, body, map[bool]string{true: "after", false: "limit"}[strings.HasPrefix(q, "?after")])
	}

	// Recover re-queues the failed delivery once the webhook is Active again.
	rc.answer(0)
	res, body = e.call(t, "POST", path+"/enable", e.manage, "")
	want(t, res, body, http.StatusOK, &got)
	for _, b := range []string{`{}`, `{"Since":"yesterday"}`, `{"Since":"2000-01-01T00:00:00Z"}`,
		`{"Since":"` + time.Now().Add(time.Hour).UTC().Format(time.RFC3339) + `"}`} {
		res, body = e.call(t, "POST", path+"/recover", e.manage, b)
		wantFieldError(t, res, body, "Since")
	}
	var recovered struct{ Requeued int }
	res, body = e.call(t, "POST", path+"/recover", e.manage, `{"Since":"`+time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)+`"}`)
	want(t, res, body, http.StatusAccepted, &recovered)
	if recovered.Requeued != 1 {
		t.Fatalf("recover: %s", body)
	}
	if got := rc.collect(t, 1, map[string]string{"/hook": secret}); got["/hook"][events[3]] == nil {
		t.Fatalf("recovered delivery: %v", got)
	}

	// Redeliver one delivery: a new delivery of the same event.
	var again restDelivery
	res, body = e.call(t, "POST", path+"/deliveries/"+seen[3].Id+"/redeliver", e.manage, "")
	want(t, res, body, http.StatusAccepted, &again)
	if again.EventId != events[0] || again.Id == seen[3].Id || again.Status != "Pending" {
		t.Fatalf("redelivered %s", body)
	}
	if got := rc.collect(t, 1, map[string]string{"/hook": secret}); got["/hook"][events[0]] == nil {
		t.Fatalf("redelivery: %v", got)
	}
	for _, p := range []string{path + "/deliveries/" + uuid.NewString() + "/redeliver",
		"/api/p/v1/webhooks/" + bad.Id + "/deliveries/" + seen[3].Id + "/redeliver"} {
		res, body = e.call(t, "POST", p, e.manage, "")
		wantProblem(t, res, body, http.StatusNotFound)
	}
	res, body = e.call(t, "POST", path+"/deliveries/x/redeliver", e.manage, "")
	wantFieldError(t, res, body, "deliveryId")

	// Disable keeps the configuration.
	var disabled restWebhook
	res, body = e.call(t, "POST", path+"/disable", e.manage, "")
	want(t, res, body, http.StatusOK, &disabled)
	if disabled.State != "Disabled" || disabled.Url != rc.URL+"/hook" || len(disabled.EventTypes) != 2 {
		t.Fatalf("disabled %s", body)
	}

	// Another tenant's webhook does not exist for globex, on every route.
	globex := e.srv.Token(t, e.globex, domain.ScopeWebhookManage)
	for _, r := range webhookRoutes(id, seen[0].Id) {
		res, body = e.call(t, r.method, r.path, globex, r.body)
		wantProblem(t, res, body, http.StatusNotFound)
	}
	var none []restWebhook
	res, body = e.call(t, "GET", "/api/p/v1/webhooks", globex, "")
	want(t, res, body, http.StatusOK, &none)
	if len(none) != 0 {
		t.Fatalf("globex lists %s", body)
	}

	// Delete: 204, then gone.
	res, body = e.call(t, "DELETE", path, e.manage, "")
	if res.StatusCode != http.StatusNoContent || len(body) != 0 {
		t.Fatalf("delete: %d %s", res.StatusCode, body)
	}
	for _, m := range []string{"GET", "DELETE"} {
		res, body = e.call(t, m, path, e.manage, "")
		wantProblem(t, res, body, http.StatusNotFound)
	}

	// PUT is not a method of the webhook resource.
	res, body = testkit.Request(t, "PUT", e.srv.URL+path, map[string]string{"Authorization": "Bearer " + e.manage}, "")
	wantProblem(t, res, body, http.StatusMethodNotAllowed)
	if a := res.Header.Get("Allow"); a != "GET, PATCH, DELETE" {
		t.Fatalf("Allow %q", a)
	}
}

type routeCall struct{ method, path, body string }

// webhookRoutes is one call of every webhook management route with a valid
// body, for webhook id and delivery deliveryID.
func webhookRoutes(id, deliveryID string) []routeCall {
	p := "/api/p/v1/webhooks/" + id
	return []routeCall{
		{"GET", p, ""}, {"PATCH", p, `{"Name":"x"}`}, {"DELETE", p, ""},
		{"POST", p + "/enable", ""}, {"POST", p + "/disable", ""}, {"POST", p + "/rotate-secret", ""},
		{"GET", p + "/deliveries", ""}, {"POST", p + "/deliveries/" + deliveryID + "/redeliver", ""},
		{"POST", p + "/recover", `{"Since":"` + time.Now().Add(-time.Hour).UTC().Format(time.RFC3339) + `"}`},
	}
}

// Every route needs a token with webhook:manage (403 naming it otherwise)
// and is rate limited like every other route.
func TestWebhookManagementRESTScopeAndRateLimit(t *testing.T) {
	clk := newClock()
	e := newWhEnv(t, apptest.Options{Configure: func(c *app.Config) {
		c.ClientRateLimit, c.TenantRateLimit = 2, 100
		c.RateLimitClock = clk.Now
	}})
	reader := e.srv.Token(t, e.acme, domain.ScopeLoadRead, domain.ScopeTripRead)
	routes := append(webhookRoutes(uuid.NewString(), uuid.NewString()),
		routeCall{"GET", "/api/p/v1/webhooks", ""},
		routeCall{"POST", "/api/p/v1/webhooks", `{"Name":"x","Url":"https://example.com","EventTypes":["load.changed"],"SubsidiaryId":"` + e.acme.SubsidiaryID.String() + `"}`})
	for _, r := range routes {
		clk.Advance(time.Second) // a full bucket for each route
		res, body := e.call(t, r.method, r.path, reader, r.body)
		wantProblem(t, res, body, http.StatusForbidden)
		if h := res.Header.Get("WWW-Authenticate"); !strings.Contains(h, `error="insufficient_scope"`) || !strings.Contains(h, `scope="webhook:manage"`) {
			t.Fatalf("%s %s: WWW-Authenticate %q", r.method, r.path, h)
		}
		res, body = e.call(t, r.method, r.path, "", r.body)
		wantProblem(t, res, body, http.StatusUnauthorized)
	}

	// The client's bucket of 2: RateLimit-* on every answer, then 429.
	clk.Advance(time.Second)
	for i := range 3 {
		res, body := e.call(t, "GET", "/api/p/v2/webhooks", e.manage, "")
		if res.Header.Get("RateLimit-Limit") != "2" || res.Header.Get("RateLimit-Remaining") != strconv.Itoa(max(1-i, 0)) {
			t.Fatalf("request %d: RateLimit-Limit %q Remaining %q", i, res.Header.Get("RateLimit-Limit"), res.Header.Get("RateLimit-Remaining"))
		}
		if i < 2 && res.StatusCode != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, res.StatusCode, body)
		}
		if i == 2 {
			wantProblem(t, res, body, http.StatusTooManyRequests)
			if n, err := strconv.Atoi(res.Header.Get("Retry-After")); err != nil || n < 1 {
				t.Fatalf("Retry-After %q", res.Header.Get("Retry-After"))
			}
		}
	}
}
