package rest_test

import (
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// Each case the fuzzer and the hand-written round found, one by one: what
// the server accepted although the document forbids it, and what it
// refused although the document allows it.
func TestBoundsCases(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{Configure: func(c *app.Config) { c.WebhookResolver = publicResolver{} }})
	token := f.srv.Token(t, f.tenant, append(slices.Clone(readScopes), domain.ScopeWebhookManage, domain.Scope("driver:update"))...)
	sub := f.tenant.SubsidiaryID.String()
	id := uuid.NewString()
	hook := `{"Name":"n","Url":"https://hooks.example.com/x","EventTypes":["load.changed"],"SubsidiaryId":"` + sub + `"`
	recent := time.Now().Add(-time.Hour).UTC().Format("2006-01-02T15:04:05Z")
	search := func(extra string) string {
		return `{"Page":0,"PageSize":20,"StatementDateRange":{"Start":"2025-01-01T00:00:00Z","End":"2025-01-31T00:00:00Z"}` + extra + `}`
	}
	cases := []struct {
		name, method, path, body string
		status                   int
		field                    string // named in errors when status is 400
	}{
		// Accepted, although the document forbids it.
		{"null RotationWindow", "POST", "/webhooks/" + id + "/rotate-secret", `{"RotationWindow":null}`, 400, "RotationWindow"},
		{"null IncludePreviousAttributes", "POST", "/webhooks", hook + `,"IncludePreviousAttributes":null}`, 400, "IncludePreviousAttributes"},
		{"null SignatureScheme", "POST", "/webhooks", hook + `,"SignatureScheme":null}`, 400, "SignatureScheme"},
		{"PATCH null Name", "PATCH", "/webhooks/" + id, `{"Name":null}`, 400, "Name"},
		{"PATCH null Url", "PATCH", "/webhooks/" + id, `{"Url":null}`, 400, "Url"},
		{"uuid in braces", "GET", "/invoices?id=%7B" + id + "%7D", "", 400, "id"},
		{"urn:uuid", "GET", "/invoices?id=urn:uuid:" + id, "", 400, "id"},
		{"unhyphenated uuid", "GET", "/invoices?id=" + strings.ReplaceAll(id, "-", ""), "", 400, "id"},
		{"uuid path segment in braces", "GET", "/webhooks/%7B" + id + "%7D", "", 400, "id"},
		{"format in upper case", "GET", "/driver-settlement-statements/export?start=2025-01-01&end=2025-01-31&format=CSV", "", 400, "format"},
		{"boolean TRUE", "GET", "/events?includePreviousAttributes=TRUE", "", 400, "includePreviousAttributes"},
		{"boolean 1", "GET", "/events?includePreviousAttributes=1", "", 400, "includePreviousAttributes"},
		{"limit with a plus sign", "GET", "/trailers?limit=%2B10", "", 400, "limit"},
		{"a 36-character Since", "POST", "/webhooks/" + id + "/recover", `{"Since":"` + strings.TrimSuffix(recent, "Z") + `.0000000000+00:00"}`, 400, "Since"},
		{"an empty event type", "GET", "/events?type=", "", 400, "type"},
		{"a repeated event type", "POST", "/webhooks", `{"Name":"n","Url":"https://hooks.example.com/x","EventTypes":["load.changed","load.changed"],"SubsidiaryId":"` + sub + `"}`, 400, "EventTypes"},
		{"a location status in another case", "POST", "/locations/search", `{"PageSize":20,"Status":["active"]}`, 400, "Status"},
		{"Page past its maximum", "POST", "/users/search", `{"Page":21474837,"PageSize":1}`, 400, "Page"},
		{"a non-ASCII webhook URL", "POST", "/webhooks", `{"Name":"n","Url":"https://hooks.example.com/é","EventTypes":["load.changed"],"SubsidiaryId":"` + sub + `"}`, 400, "Url"},
		{"a blank id beside an invoiceNumber (an id of spaces is given)", "GET", "/invoices?id=%20&invoiceNumber=INV-1", "", 400, "id"},
		{"a Since 31 days ago (x-within)", "POST", "/webhooks/" + id + "/recover", `{"Since":"` + time.Now().Add(-31*24*time.Hour).UTC().Format(time.RFC3339) + `"}`, 400, "Since"},
		{"a cursor outside base64url", "GET", "/trailers?after=a%20b", "", 400, "after"},
		{"a malformed cursor of a webhook that does not exist", "GET", "/webhooks/" + id + "/deliveries?after=a.b", "", 400, "after"},
		// Refused, although the document allows it.
		{"an empty invoiceNumber beside an id (the contract: not given)", "GET", "/invoices?id=" + id + "&invoiceNumber=", "", 404, ""},
		{"an empty id beside an invoiceNumber", "GET", "/invoices?id=&invoiceNumber=INV-404", "", 404, ""},
		{"an empty cursor (not given)", "GET", "/trailers?after=", "", 200, ""},
		{"Name at 200 two-byte characters", "POST", "/webhooks", `{"Name":"` + strings.Repeat("é", 200) + `","Url":"https://hooks.example.com/x","EventTypes":["load.changed"],"SubsidiaryId":"` + sub + `"}`, 201, ""},
		{"Keyword at 200 four-byte characters", "POST", "/users/search", `{"Page":0,"PageSize":1,"Keyword":"` + strings.Repeat("𝄞", 200) + `"}`, 200, ""},
		{"loadNumber at 64 two-byte characters", "GET", "/loads/" + url.PathEscape(strings.Repeat("é", 64)), "", 404, ""},
		{"integers written 10.0", "POST", "/users/search", `{"Page":0.0,"PageSize":10.0}`, 200, ""},
		{"Page at its documented maximum", "POST", "/users/search", `{"Page":21474836,"PageSize":100}`, 200, ""},
		{"lower-case t and z", "GET", "/events?since=" + strings.ToLower(recent), "", 200, ""},
		{"lower-case t and z in a body", "POST", "/webhooks/" + id + "/recover", `{"Since":"` + strings.ToLower(recent) + `"}`, 404, ""},
		{"DriverType in any case (the contract's rule for the search)", "POST", "/driver-settlement-statements/search", search(`,"DriverType":"company"`), 200, ""},
		{"driverType in any case (the export mirrors the search)", "GET", "/driver-settlement-statements/export?start=2025-01-01&end=2025-01-31&driverType=company", "", 200, ""},
		{"a date-time at an offset", "GET", "/events?since=" + url.QueryEscape(time.Now().Add(-time.Hour).In(time.FixedZone("", -5*3600)).Format(time.RFC3339)), "", 200, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, body := f.call(t, c.method, "/api/p/v1"+c.path, token, c.body)
			if c.status == 400 {
				wantFieldError(t, res, body, c.field)
				return
			}
			if res.StatusCode != c.status {
				t.Fatalf("status %d, want %d: %s", res.StatusCode, c.status, body)
			}
		})
	}
	// A text form field's length is counted in characters: 600 two-byte
	// characters (1200 bytes) are within DocumentType's 1024, refused only
	// as a type the driver target does not allow; 1025 are too long.
	for _, tc := range []struct {
		n    int
		want string
	}{{600, "is not a document type"}, {1025, "at most 1024 characters"}} {
		body, ct := multipartBody(t, fieldP("DocumentType", strings.Repeat("é", tc.n)), fileP("a.pdf", []byte("%PDF-1.4\n")))
		req, _ := http.NewRequest("POST", f.srv.URL+"/api/p/v1/drivers/"+f.seed.DriverID.String()+"/document", body)
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		p := wantProblem(t, res, b, 400)
		if msgs := strings.Join(p.Errors["DocumentType"], " "); !strings.Contains(msgs, tc.want) {
			t.Errorf("DocumentType of %d characters: %q, want %q", tc.n, msgs, tc.want)
		}
	}
}

// Every path of the served document answers a method it does not serve
// with 405 and an Allow header naming exactly the methods it does.
func TestEveryPathAnswers405WithAllow(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	token := f.srv.Token(t, f.tenant, readScopes...)
	paths := f.oas.doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	checked := 0
	for _, path := range paths {
		item := f.oas.doc.Paths.Value(path)
		var served []string
		for m := range item.Operations() {
			served = append(served, m)
		}
		sort.Strings(served)
		concrete := path
		for _, seg := range strings.Split(path, "/") {
			if strings.HasPrefix(seg, "{") {
				concrete = strings.Replace(concrete, seg, uuid.NewString(), 1)
			}
		}
		for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			if slices.Contains(served, m) {
				continue
			}
			res, body := testkit.Request(t, m, f.srv.URL+concrete, map[string]string{"Authorization": "Bearer " + token}, "")
			if res.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("%s %s: %d, want 405: %s", m, concrete, res.StatusCode, body)
				continue
			}
			var allow []string
			for _, a := range strings.Split(res.Header.Get("Allow"), ",") {
				allow = append(allow, strings.TrimSpace(a))
			}
			sort.Strings(allow)
			if !slices.Equal(allow, served) {
				t.Errorf("%s %s: Allow %v, want %v", m, concrete, allow, served)
			}
			checked++
		}
	}
	if checked < 60 {
		t.Fatalf("checked %d method/path pairs", checked)
	}
}
