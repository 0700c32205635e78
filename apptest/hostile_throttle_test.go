package apptest_test

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/ratelimit"
)

// The token endpoint's throttle and the strictness of request decoding:
// a caller cannot buy unlimited guesses, database writes or ERROR lines
// with made-up client_ids, and no request is read two ways.

// fixedClock is a rate-limit clock that moves only when told: buckets do
// not refill while a test runs.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

// from is an HTTP client whose connections leave from ip (any 127/8
// address reaches the 127.0.0.1 listener): one remote address per client.
func from(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// tokenAttempt posts a client-credentials form and returns the status and
// the OAuth error code.
func tokenAttempt(t *testing.T, c *http.Client, srv *apptest.Server, clientID, secret string) (int, string, http.Header) {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {clientID}, "client_secret": {secret},
		"audience": {srv.Config.Audience}}
	return postTokenBody(t, c, srv, "application/x-www-form-urlencoded", form.Encode(), nil)
}

func postTokenBody(t *testing.T, c *http.Client, srv *apptest.Server, ct, body string, edit func(*http.Request)) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/oauth/token", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	if edit != nil {
		edit(req)
	}
	res, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	var o struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("token endpoint answered %d with non-JSON %q", res.StatusCode, b)
	}
	return res.StatusCode, o.Error, res.Header
}

// randomClientID looks like a real client id ("hgc_" and 16 base32
// letters) but names no client.
func randomClientID() string {
	b := make([]byte, 10)
	_, _ = rand.Read(b)
	return "hgc_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b))
}

// bucketRows counts the rows of rate_limit_buckets other than the token
// endpoint's one global bucket.
func bucketRows(t *testing.T, srv *apptest.Server) int {
	t.Helper()
	var n int
	if err := srv.DB.Pool.QueryRow(context.Background(), "SELECT count(*) FROM rate_limit_buckets WHERE key <> 'token:global'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func errorLines(log string) []string {
	var out []string
	for _, line := range strings.Split(log, "\n") {
		if strings.Contains(line, "level=ERROR") {
			out = append(out, line)
		}
	}
	return out
}

// 150 made-up client_ids from one address: once the address's bucket is
// spent every attempt is 429 slow_down, and only the attempts it admitted
// are charged to a client bucket (one of httpedge.ClientSlots, by hash).
// Bound: at most burst+1 attempts answered 401, at most burst new rows in
// rate_limit_buckets. Not parallel: it counts the database's rows.
func TestHostileTokenUnknownClientIDs(t *testing.T) {
	const burst = 20
	log := &syncBuffer{}
	clk := &fixedClock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	srv := apptest.Start(t, apptest.Options{Log: log, Configure: func(c *app.Config) {
		c.RateLimitClock = clk.Now
		c.TokenAddressRateLimit, c.TokenAddressRateBurst = 1, burst
	}})
	tn := apptest.NewTenant(t, srv, "acme")
	id, secret := srv.Client(t, tn, domain.ScopeLoadRead)
	before := bucketRows(t, srv)
	attacker := from("127.0.0.1")
	count := map[int]int{}
	for range 150 {
		status, code, h := tokenAttempt(t, attacker, srv, randomClientID(), "hgcs_guess")
		count[status]++
		if status == 429 && (code != "slow_down" || h.Get("Retry-After") == "") {
			t.Fatalf("429 %q Retry-After %q", code, h.Get("Retry-After"))
		}
	}
	grown := bucketRows(t, srv) - before
	t.Logf("150 unknown client_ids from one address: %v; rate_limit_buckets rows +%d", count, grown)
	if count[429] < 150-burst-1 || count[401] > burst+1 {
		t.Errorf("the address's bucket did not refuse: %v", count)
	}
	if grown > burst {
		t.Errorf("rate_limit_buckets grew by %d rows for 150 unknown client_ids, %d admitted", grown, burst)
	}
	// The right client from another address is not the attacker's victim.
	if status, code, _ := tokenAttempt(t, from("127.0.0.2"), srv, id, secret); status != 200 {
		t.Errorf("a real client from another address: %d %s", status, code)
	}
	if lines := errorLines(log.String()); len(lines) > 0 {
		t.Errorf("%d ERROR lines, e.g. %s", len(lines), lines[0])
	}
}

// The token endpoint as a whole has a bucket shared by every address:
// callers from two addresses, each far inside its own bucket, are refused
// together once the global one is spent. Bound: global burst (10) answers
// that are not 429 among 30 attempts.
func TestHostileTokenGlobalLimit(t *testing.T) {
	t.Parallel()
	const burst = 10
	clk := &fixedClock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.RateLimitClock = clk.Now
		c.TokenGlobalRateLimit, c.TokenGlobalRateBurst = 1, burst
	}})
	count := map[int]int{}
	for i := range 30 {
		status, _, _ := tokenAttempt(t, from(fmt.Sprintf("127.0.0.%d", 2+i%2)), srv, randomClientID(), "hgcs_guess")
		count[status]++
	}
	t.Logf("30 attempts from two addresses: %v", count)
	if count[429] != 30-burst {
		t.Errorf("want %d refusals once the global bucket is spent, got %v", 30-burst, count)
	}
}

// A client_id the text rule refuses (NUL, invalid UTF-8, longer than any
// client id) is invalid_request before any limiter or the database sees
// it, at the token and the revocation endpoint: no ERROR is logged (the
// revocation endpoint answered a NUL with a 500), no bucket row is written.
// Bound: 0 ERROR lines, 0 new rows. Not parallel: it counts rows.
func TestHostileTokenMalformedClientID(t *testing.T) {
	log := &syncBuffer{}
	srv := apptest.Start(t, apptest.Options{Log: log})
	before := bucketRows(t, srv)
	aud := srv.Config.Audience
	c := from("127.0.0.1")
	form := func(id string) string {
		return url.Values{"grant_type": {"client_credentials"}, "client_id": {id}, "client_secret": {"s"}, "audience": {aud}}.Encode()
	}
	type tokenCase struct {
		name, ct, body string
		edit           func(*http.Request)
	}
	revoke := func(r *http.Request) { r.URL.Path = "/oauth/revoke" }
	cases := []tokenCase{
		{"form NUL", "application/x-www-form-urlencoded", form("\x00"), nil},
		{"form NUL suffix", "application/x-www-form-urlencoded", form("hgc_abc\x00"), nil},
		{"form invalid UTF-8", "application/x-www-form-urlencoded", form("\xff"), nil},
		{"form too long", "application/x-www-form-urlencoded", form(strings.Repeat("a", 4000)), nil},
		{"JSON NUL", "application/json", fmt.Sprintf(`{"grant_type":"client_credentials","client_id":"\u0000","client_secret":"s","audience":%q}`, aud), nil},
		{"Basic NUL", "application/x-www-form-urlencoded", "grant_type=client_credentials&audience=" + url.QueryEscape(aud),
			func(r *http.Request) { r.SetBasicAuth("%00", "s") }},
		{"revoke NUL", "application/x-www-form-urlencoded", "token=x&client_secret=s&client_id=%00", revoke},
		{"revoke too long", "application/x-www-form-urlencoded", "token=x&client_secret=s&client_id=" + strings.Repeat("a", 4000), revoke},
	}
	for _, tc := range cases {
		for range 5 {
			status, code, _ := postTokenBody(t, c, srv, tc.ct, tc.body, tc.edit)
			if status != 400 || code != "invalid_request" {
				t.Errorf("%s: %d %s, want 400 invalid_request", tc.name, status, code)
			}
		}
	}
	grown := bucketRows(t, srv) - before
	lines := errorLines(log.String())
	t.Logf("malformed client_ids: %d ERROR lines, rows +%d", len(lines), grown)
	if len(lines) > 0 {
		t.Errorf("%d ERROR lines, e.g. %s", len(lines), lines[0])
	}
	if grown > 0 {
		t.Errorf("rate_limit_buckets grew by %d rows", grown)
	}
}

// failingStore is the PostgreSQL bucket store failing every lease of keys
// with the given prefix, as a broken or unreachable database would.
type failingStore struct {
	ratelimit.Store
	prefix string
}

func (s failingStore) Lease(ctx context.Context, key string, l ratelimit.Limit, want, giveBack int, now time.Time) (int, float64, error) {
	if strings.HasPrefix(key, s.prefix) {
		return 0, 0, errors.New("bucket store broken")
	}
	return s.Store.Lease(ctx, key, l, want, giveBack, now)
}

// A limiter that cannot answer refuses: the right credentials get 503
// temporarily_unavailable with Retry-After, never a token, whichever of
// the token endpoint's buckets fails; so does an address the address
// table has no room for.
func TestHostileTokenLimiterFailsClosed(t *testing.T) {
	t.Parallel()
	for _, prefix := range []string{"token:global", "token:client:"} {
		t.Run(prefix, func(t *testing.T) {
			t.Parallel()
			srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
				c.RateLimitStore = func(s ratelimit.Store) ratelimit.Store { return failingStore{s, prefix} }
			}})
			tn := apptest.NewTenant(t, srv, "acme")
			id, secret := srv.Client(t, tn, domain.ScopeLoadRead)
			status, code, h := tokenAttempt(t, from("127.0.0.1"), srv, id, secret)
			if status != 503 || code != "temporarily_unavailable" || h.Get("Retry-After") == "" {
				t.Errorf("with the %s bucket failing: %d %s Retry-After %q", prefix, status, code, h.Get("Retry-After"))
			}
		})
	}
	t.Run("address table full", func(t *testing.T) {
		t.Parallel()
		clk := &fixedClock{t: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)} // the first address's bucket stays in use
		srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
			c.TokenAddressMax, c.RateLimitClock = 1, clk.Now
		}})
		tn := apptest.NewTenant(t, srv, "acme")
		id, secret := srv.Client(t, tn, domain.ScopeLoadRead)
		if status, code, _ := tokenAttempt(t, from("127.0.0.2"), srv, id, secret); status != 200 {
			t.Fatalf("first address: %d %s", status, code)
		}
		status, code, h := tokenAttempt(t, from("127.0.0.3"), srv, id, secret)
		if status != 503 || code != "temporarily_unavailable" || h.Get("Retry-After") == "" {
			t.Errorf("second address with room for one: %d %s", status, code)
		}
	})
}

// encoding/json matches field names case-insensitively (with Unicode
// simple folding), so a key repeated in another spelling would be read one
// way by us and another way by a proxy or log that matches exactly: the
// token endpoint and every REST body refuse it, naming the key; so does a
// multipart upload (FileName given twice: the last one counted).
func TestHostileRepeatedJSONKeys(t *testing.T) {
	t.Parallel()
	e := startEnv(t)
	aud := e.srv.Config.Audience
	tok := func(name, body string) hostile {
		return hostile{name: "token " + name, method: "POST", path: "/oauth/token", body: body,
			header: map[string]string{"Authorization": "-"}, status: 400, format: oauthJSON, want: "invalid_request"}
	}
	const p = "/api/p/v1"
	post := func(name, path, body, field string) hostile {
		return hostile{name: "REST " + name, method: "POST", path: p + path, body: body, status: 400, format: problemJSON, want: field}
	}
	ok := fmt.Sprintf(`"grant_type":"client_credentials","client_secret":%q,"audience":%q`, e.secret, aud)
	day := "2025-01-01T00:00:00Z"
	cases := []hostile{
		tok("CLIENT_ID then client_id", fmt.Sprintf(`{"CLIENT_ID":"junk","client_id":%q,%s}`, e.clientID, ok)),
		tok("client_id then Client_Id", fmt.Sprintf(`{"client_id":%q,"Client_Id":"junk",%s}`, e.clientID, ok)),
		tok("long s folds to s", fmt.Sprintf(`{"client_id":%q,%s,"client_ſecret":"x"}`, e.clientID, ok)),
		tok("exact repeat", fmt.Sprintf(`{"client_id":%q,"client_id":%q,%s}`, e.clientID, e.clientID, ok)),
		post("users PageSize pagesize", "/users/search", `{"PageSize":1,"pagesize":100}`, "pagesize"),
		post("users Keyword twice", "/users/search", `{"Keyword":"a","Keyword":"b"}`, "Keyword"),
		post("locations Status STATUS", "/locations/search", `{"PageSize":10,"Status":["Active"],"STATUS":[]}`, "STATUS"),
		post("statements nested Start START", "/driver-settlement-statements/search",
			`{"Page":0,"PageSize":10,"StatementDateRange":{"Start":"`+day+`","START":"2024-01-01T00:00:00Z","End":"`+day+`"}}`, "StatementDateRange.START"),
		post("statements DriverId driverid", "/driver-settlement-statements/search",
			`{"Page":0,"PageSize":10,"DriverId":"a","driverid":"b","StatementDateRange":{"Start":"`+day+`","End":"`+day+`"}}`, "driverid"),
		post("webhooks Url URL", "/webhooks", `{"Name":"x","Url":"https://example.com/a","URL":"https://evil.example/b","EventTypes":["load.changed"]}`, "URL"),
		{name: "upload FileName filename", method: "POST", path: p + "/loads/" + e.load + "/document", header: multipartCT,
			body:   multipartBody(formField("DocumentType", "Bill of Lading"), formField("FileName", "a.pdf"), formField("filename", "b.pdf"), formFile("File", "a.pdf")),
			status: 400, format: problemJSON, want: "FileName"},
		{name: "REST webhooks PATCH Name name", method: "PATCH", path: p + "/webhooks/" + uuid.NewString(), body: `{"Name":"a","name":"b"}`,
			status: 400, format: problemJSON, want: "name"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			res, b := e.send(t, c)
			c.check(t, res, b)
		})
	}
}

// A query parameter given twice, in the same or another spelling, is
// refused with a 400 naming it on every REST route that reads the query:
// which value counted used to depend on the order of a walk over a map.
func TestHostileRepeatedQueryParameters(t *testing.T) {
	t.Parallel()
	e := startEnv(t)
	const p = "/api/p/v1"
	day, next := "2025-01-01T00:00:00Z", "2025-02-01T00:00:00Z"
	d0, d1 := "2025-01-01", "2025-02-01"
	export := p + "/driver-settlement-statements/export?driverType=Company&"
	hook := p + "/webhooks/" + uuid.NewString() + "/deliveries?"
	cases := []struct{ path, param string }{
		{p + "/invoices?invoiceNumber=INV-1&InvoiceNumber=INV-2", "InvoiceNumber"},
		{p + "/invoices?invoiceNumber=INV-1&invoiceNumber=INV-2", "invoiceNumber"},
		{p + "/invoices?id=" + uuid.NewString() + "&ID=" + uuid.NewString(), "ID"},
		{p + "/trailers?limit=1&LIMIT=5", "LIMIT"},
		{p + "/trailers?limit=1&limit=5", "limit"},
		{p + "/trailers?after=a&After=b", "After"},
		{p + "/events?limit=1&Limit=2", "Limit"},
		{p + "/events?after=a&AFTER=b", "AFTER"},
		{p + "/events?loadNumber=" + e.load + "&LoadNumber=LD-0", "LoadNumber"},
		{p + "/events?subsidiaryId=" + e.sub + "&subsidiaryID=" + uuid.NewString(), "subsidiaryID"},
		{p + "/events?since=" + day + "&Since=" + next, "Since"},
		{p + "/events?includePreviousAttributes=true&includepreviousattributes=false", "includepreviousattributes"},
		{export + "start=" + d0 + "&end=" + d1 + "&format=csv&FORMAT=ndjson", "FORMAT"},
		{export + "start=" + d0 + "&end=" + d1 + "&format=csv&format=ndjson", "format"},
		{export + "start=" + d0 + "&Start=2024-01-01&end=" + d1 + "&format=csv", "Start"},
		{export + "start=" + d0 + "&end=" + d1 + "&END=2026-01-01&format=csv", "END"},
		{export + "start=" + d0 + "&end=" + d1 + "&format=csv&driverId=a&DriverID=b", "DriverID"},
		{p + "/driver-settlement-statements/export?start=" + d0 + "&end=" + d1 + "&format=csv&driverType=Company&DRIVERTYPE=Owner", "DRIVERTYPE"},
		{export + "start=" + d0 + "&end=" + d1 + "&format=csv&bom=true&Bom=false", "Bom"},
		{hook + "limit=1&Limit=2", "Limit"},
		{hook + "after=a&after=b", "after"},
		{"/api/p/documents/" + uuid.NewString() + "/content?tenant=" + uuid.NewString() + "&expires=1&expires=2&sig=x", "expires"},
		{p + "/invoices?invoiceNumber=%zz", "query"},
	}
	for _, c := range cases {
		t.Run(c.path, func(t *testing.T) {
			t.Parallel()
			h := hostile{method: "GET", path: c.path, status: 400, format: problemJSON, want: c.param}
			res, b := e.send(t, h)
			h.check(t, res, b)
		})
	}
	// A list parameter may repeat: /events?type=a&type=b filters by both.
	ok := hostile{method: "GET", path: p + "/events?type=load.changed&type=trip.changed", status: 200}
	if res, b := e.send(t, ok); res.StatusCode != 200 {
		t.Errorf("repeated type: %d %s", res.StatusCode, b)
	}
}

// The API's own limits fail closed too: with the client bucket's store
// failing, REST and GraphQL answer 503 with Retry-After in their formats,
// never the data; with the GraphQL cost budget's store failing, a query is
// refused the same way while REST (which spends no cost) is served.
func TestHostileAPILimitersFailClosed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		prefix        string
		rest, graphQL int
	}{
		{prefix: "client:", rest: 503, graphQL: 503},
		{prefix: "tenant:", rest: 503, graphQL: 503},
		{prefix: "gqlcost:", rest: 200, graphQL: 503},
	} {
		t.Run(c.prefix, func(t *testing.T) {
			t.Parallel()
			srv := apptest.Start(t, apptest.Options{Configure: func(cfg *app.Config) {
				cfg.RateLimitStore = func(s ratelimit.Store) ratelimit.Store { return failingStore{s, c.prefix} }
			}})
			tn := apptest.NewTenant(t, srv, "acme")
			e := &env{srv: srv, token: srv.Token(t, tn, domain.ScopeTrailerRead, domain.ScopeLoadRead)}
			res, b := e.send(t, hostile{method: "GET", path: "/api/p/v1/trailers"})
			if res.StatusCode != c.rest {
				t.Fatalf("REST: %d, want %d: %s", res.StatusCode, c.rest, b)
			}
			if c.rest == 503 {
				hostile{status: 503, format: problemJSON}.check(t, res, b)
				if res.Header.Get("Retry-After") == "" {
					t.Errorf("REST 503 without Retry-After")
				}
			}
			res, b = e.send(t, hostile{method: "POST", path: "/graphql", body: gqlBody(`{trailers(first:1){totalCount}}`, nil)})
			hostile{status: c.graphQL, format: graphQL, want: string(domain.CodeUnavailable)}.check(t, res, b)
			if res.Header.Get("Retry-After") == "" || strings.Contains(string(b), `"data":{`) {
				t.Errorf("GraphQL refusal without Retry-After, or with data: %s", b)
			}
		})
	}
}
