package golive

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

// The example programs, built and run as an integrator would run them,
// against a real instance on 127.0.0.1.

func creds(f *fixture, t *testing.T, base string, scopes ...domain.Scope) []string {
	id, secret := f.credentials(t, scopes...)
	return []string{"HG_BASE_URL=" + base, "HG_CLIENT_ID=" + id, "HG_CLIENT_SECRET=" + secret}
}

// rawStatements reads the range's statements with plain HTTP, for an
// answer the SDK played no part in: their count and net income.
// A non-nil clk is the server's rate-limit clock, moved a second ahead
// before each page (one request a second is allowed).
func rawStatements(t *testing.T, f *fixture, clk *clock) (int, decimal.Decimal) {
	t.Helper()
	tok := f.srv.Token(t, f.tenant, domain.ScopeDriverRead)
	net, n := decimal.Zero, 0
	for page := 0; ; page++ {
		if clk != nil {
			clk.advance(time.Second)
		}
		body := fmt.Sprintf(`{"Page":%d,"PageSize":100,"StatementDateRange":{"Start":"%sT00:00:00Z","End":"%sT00:00:00Z"}}`,
			page, f.seed.StatementFrom, f.seed.StatementTo)
		req, _ := http.NewRequest("POST", f.srv.URL+"/api/p/v1/driver-settlement-statements/search", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+tok)
		req.Header.Set("Content-Type", "application/json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Total int
			Items []struct {
				Totals struct{ NetIncome *struct{ Amount json.Number } }
			}
		}
		dec := json.NewDecoder(res.Body)
		dec.UseNumber()
		err = dec.Decode(&p)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("search: %d %v", res.StatusCode, err)
		}
		for _, s := range p.Items {
			n++
			if s.Totals.NetIncome != nil {
				net = net.Add(decimal.RequireFromString(s.Totals.NetIncome.Amount.String()))
			}
		}
		if (page+1)*100 >= p.Total {
			return n, net
		}
	}
}

var pageLine = regexp.MustCompile(`^page (\d+): (\d+) statements of (\d+) \(attempts: (\d+)\)$`)

// checkStatements asserts the statements example's output: every page in
// order, then the count and the exact net income of the plain HTTP read.
func checkStatements(t *testing.T, f *fixture, out []string, pageSize, want int, net decimal.Decimal) {
	t.Helper()
	if len(out) == 0 || !strings.HasPrefix(out[0], "token: Bearer, expires ") {
		t.Fatalf("no token line: %q", out)
	}
	if want != f.seed.VisibleStatements || want <= pageSize {
		t.Fatalf("the range holds %d statements (seed: %d); the test needs more than a page", want, f.seed.VisibleStatements)
	}
	var pages []int
	for _, l := range out {
		if m := pageLine.FindStringSubmatch(l); m != nil {
			pages = append(pages, len(pages))
			if m[1] != fmt.Sprint(len(pages)-1) || m[3] != fmt.Sprint(want) {
				t.Errorf("page line %q", l)
			}
		}
	}
	if wantPages := (want + pageSize - 1) / pageSize; len(pages) != wantPages {
		t.Errorf("%d pages read, want %d", len(pages), wantPages)
	}
	if last := out[len(out)-1]; last != fmt.Sprintf("statements: %d, net income: %s", want, net.StringFixed(2)) {
		t.Errorf("last line %q, want %d statements with net income %s", last, want, net.StringFixed(2))
	}
}

// Token, then a search page by page; the sum of amounts is exact.
func TestExampleStatements(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	want, net := rawStatements(t, f, nil)
	out := run(t, "statements", creds(f, t, f.srv.URL, domain.ScopeDriverRead),
		"-from", f.seed.StatementFrom.String(), "-to", f.seed.StatementTo.String(), "-page-size", "25")
	checkStatements(t, f, out, 25, want, net)
	for _, l := range out {
		if strings.HasPrefix(l, "retry") {
			t.Errorf("retried without a rate limit: %q", l)
		}
	}
}

// With five requests a second allowed (a burst of five) and more than
// five pages to read, the sixth page is refused with 429 and read after
// Retry-After. The server's rate-limit clock moves a second when the
// program announces its wait (the program itself waits the real second),
// which refills the bucket for the remaining pages: one real wait, not
// one per page.
func TestExampleStatementsRetriesAfter429(t *testing.T) {
	t.Parallel()
	const rate = 5
	clk := &clock{now: time.Now()}
	f := newFixture(t, apptest.Options{Configure: func(c *app.Config) { c.ClientRateLimit, c.RateLimitClock = rate, clk.Now }})
	want, net := rawStatements(t, f, clk)
	if pages := (want + 99) / 100; pages <= rate {
		t.Fatalf("the range holds %d pages of 100; the test needs more than the burst of %d", pages, rate)
	}
	clk.advance(time.Second)
	p := start(t, "statements", creds(f, t, f.srv.URL, domain.ScopeDriverRead),
		"-from", f.seed.StatementFrom.String(), "-to", f.seed.StatementTo.String(), "-page-size", "100")
	var out []string
	for l := range p.lines {
		out = append(out, l)
		if strings.HasPrefix(l, "retry ") {
			clk.advance(time.Second)
		}
	}
	out = append(out, p.wait(t)...)
	checkStatements(t, f, out, 100, want, net)
	retried := slices.ContainsFunc(out, func(l string) bool { return strings.HasPrefix(l, "retry 1 after 1s: haulgraph: 429 ") })
	twice := slices.ContainsFunc(out, func(l string) bool { return pageLine.MatchString(l) && strings.HasSuffix(l, "(attempts: 2)") })
	if !retried || !twice {
		t.Errorf("no 429 retried after Retry-After: %q", out)
	}
}

// The export streams as NDJSON with the search's count and exact sum, and
// as CSV to a file.
func TestExampleExport(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	env := creds(f, t, f.srv.URL, domain.ScopeDriverRead)
	from, to := f.seed.StatementFrom.String(), f.seed.StatementTo.String()
	want, net := rawStatements(t, f, nil)
	out := run(t, "export", env, "-from", from, "-to", to)
	name := fmt.Sprintf("settlement-statements_%s_%s.ndjson", from, to)
	if len(out) != 1 || out[0] != fmt.Sprintf("%s: %d statements, net income %s", name, want, net.StringFixed(2)) {
		t.Errorf("export printed %q, want %d statements, net income %s", out, want, net.StringFixed(2))
	}
	file := filepath.Join(t.TempDir(), "s.csv")
	out = run(t, "export", env, "-from", from, "-to", to, "-csv", file)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("StatementNumber,Status,StatementDate,")) || len(out) != 1 || !strings.Contains(out[0], fmt.Sprintf(": %d bytes saved", len(b))) {
		t.Errorf("csv export: %q, file starts %q", out, b[:min(len(b), 60)])
	}
}

// A subscription through a proxy that cuts its connection resumes after
// the last event it printed: the events printed are exactly the load's
// events in the event log, none missing, none twice.
func TestExampleSubscribeResumes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	ctx := context.Background()
	writer := f.client(t, []domain.Scope{domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeLoadRead})
	if _, err := writer.Loads.Create(ctx, &haulgraph.LoadParams{LoadNumber: "SUB-1", SubsidiaryID: f.tenant.SubsidiaryID.String(),
		Rate:  haulgraph.NewMoney("1000.10", haulgraph.USD),
		Stops: []haulgraph.StopParams{{Type: haulgraph.StopPickup, Name: "A"}, {Type: haulgraph.StopDelivery, Name: "B"}}}); err != nil {
		t.Fatal(err)
	}
	created := eventIDs(t, writer, "", 1)
	px := newProxy(t, strings.TrimPrefix(f.srv.URL, "http://"))
	const changes = 6
	p := start(t, "subscribe", creds(f, t, px.URL(), domain.ScopeLoadRead), "-loads", "SUB-1", "-after", created[0], "-count", fmt.Sprint(changes))
	rate := func(i int) {
		t.Helper()
		rate := haulgraph.NewMoney(haulgraph.Decimal(fmt.Sprintf("1000.%02d", 10+i)), haulgraph.USD)
		if _, err := writer.Loads.Update(ctx, "SUB-1", &haulgraph.LoadUpdateParams{Rate: rate}); err != nil {
			t.Fatal(err)
		}
	}
	type line struct{ ID, Cursor, LoadNumber, Status, Rate string }
	var got []line
	read := func() {
		t.Helper()
		var l line
		if err := json.Unmarshal([]byte(p.line(t)), &l); err != nil {
			t.Fatal(err)
		}
		got = append(got, l)
	}
	rate(1)
	read() // connected and delivering
	if px.cut() == 0 {
		t.Fatal("the proxy held no connection to cut")
	}
	rate(2) // committed while the subscriber is away
	rate(3)
	read()
	read()
	px.cut()
	for i := 4; i <= changes; i++ {
		rate(i)
	}
	for len(got) < changes {
		read()
	}
	p.wait(t)
	want := eventIDs(t, writer, created[0], changes)
	var ids []string
	for i, l := range got {
		ids = append(ids, l.ID)
		if l.Rate != fmt.Sprintf("1000.%02d", 11+i) || l.LoadNumber != "SUB-1" {
			t.Errorf("event %d: %+v", i, l)
		}
	}
	if !slices.Equal(ids, want) {
		t.Errorf("printed %v, the event log has %v", ids, want)
	}
	if !strings.Contains(p.errors(), "reconnecting after") {
		t.Errorf("no reconnect reported; stderr:\n%s", p.errors())
	}
}

// eventIDs lists SUB-1's load.changed events after an id ("" all), once
// the events API shows n of them (it shows an event once every earlier
// transaction has ended).
func eventIDs(t *testing.T, c *haulgraph.Client, after string, n int) []string {
	t.Helper()
	p := &haulgraph.EventListParams{LoadNumber: "SUB-1", Types: []haulgraph.EventType{haulgraph.EventLoadChanged}, After: after}
	var ids []string
	waitFor(t, fmt.Sprintf("%d events of SUB-1", n), func() bool {
		ids = nil
		for e, err := range c.Events.List(context.Background(), p) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, e.ID)
		}
		return len(ids) >= n
	})
	return ids
}

// A receiver per signature scheme verifies real deliveries signed by the
// server and refuses a forged one.
func TestExampleWebhooks(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	ctx := context.Background()
	c := f.client(t, []domain.Scope{domain.ScopeWebhookManage, domain.ScopeLoadCreate, domain.ScopeLoadUpdate})
	for i, scheme := range []haulgraph.SignatureScheme{haulgraph.SchemeService,
		haulgraph.SchemeStandardWebhooks, haulgraph.SchemeStandardWebhooksEd25519} {
		// One after the other: each receiver sees only the loads written
		// after its webhook is enabled.
		t.Run(string(scheme), func(t *testing.T) {
			load := fmt.Sprintf("WH-%d", i)
			hook, err := c.Webhooks.Create(ctx, &haulgraph.WebhookParams{Name: "receiver " + string(scheme), URL: "http://127.0.0.1:9/hooks",
				EventTypes: []haulgraph.EventType{haulgraph.EventLoadChanged}, SubsidiaryID: f.tenant.SubsidiaryID.String(), SignatureScheme: scheme})
			if err != nil {
				t.Fatal(err)
			}
			var key string
			switch {
			case scheme == haulgraph.SchemeStandardWebhooksEd25519 && hook.PublicKey != nil:
				key = *hook.PublicKey
			case hook.Secret != nil:
				key = *hook.Secret
			default:
				t.Fatalf("no key in %+v", hook)
			}
			p := start(t, "webhooks", []string{"HG_WEBHOOK_KEY=" + key}, "-addr", "127.0.0.1:0", "-scheme", string(scheme), "-count", "2")
			url, ok := strings.CutPrefix(p.line(t), "listening on ")
			if !ok {
				t.Fatal("no address printed")
			}
			// A forged delivery is refused.
			forged, _ := http.NewRequest("POST", url, strings.NewReader(`{"id":"x-0","type":"load.changed"}`))
			forged.Header.Set("X-Service-Signature", "t=1,v1=00")
			forged.Header.Set("webhook-id", "x-0")
			forged.Header.Set("webhook-timestamp", "1")
			forged.Header.Set("webhook-signature", "v1,AAAA v1a,AAAA")
			if res, err := http.DefaultClient.Do(forged); err != nil || res.StatusCode != http.StatusBadRequest {
				t.Fatalf("forged delivery: %v %v", res, err)
			}
			if _, err := c.Webhooks.Update(ctx, hook.ID, &haulgraph.WebhookUpdateParams{URL: &url}); err != nil {
				t.Fatal(err)
			}
			w, err := c.Webhooks.Enable(ctx, hook.ID)
			if err != nil || w.State != haulgraph.WebhookActive {
				t.Fatalf("enable: %+v %v", w, err)
			}
			if _, err := c.Loads.Create(ctx, &haulgraph.LoadParams{LoadNumber: load, SubsidiaryID: f.tenant.SubsidiaryID.String(),
				Stops: []haulgraph.StopParams{{Type: haulgraph.StopPickup, Name: "A"}, {Type: haulgraph.StopDelivery, Name: "B"}}}); err != nil {
				t.Fatal(err)
			}
			if _, err := c.Loads.Update(ctx, load, &haulgraph.LoadUpdateParams{Commodity: ptr("Steel")}); err != nil {
				t.Fatal(err)
			}
			var verified []string
			for _, l := range p.wait(t) {
				if strings.HasPrefix(l, "verified load.changed ") && strings.HasSuffix(l, " "+load) {
					verified = append(verified, l)
				}
			}
			if len(verified) != 2 {
				t.Errorf("verified %q, want the two events of %s", verified, load)
			}
		})
	}
}

// A load created, moved to Covered and read back with params structs; the
// rate comes back digit for digit.
func TestExampleLoads(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	out := run(t, "loads", creds(f, t, f.srv.URL, domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeLoadRead),
		"-load", "EX-1", "-subsidiary", f.tenant.SubsidiaryID.String(), "-rate", "1850.25")
	want := []*regexp.Regexp{
		regexp.MustCompile(`^created EX-1: Open, rate 1850\.25 USD \(request [0-9a-f]{32}\)$`),
		regexp.MustCompile(`^EX-1 is Covered$`),
		regexp.MustCompile(`^read EX-1: Covered, rate 1850\.25 USD, 2 stops \(attempts 1, rate limit \d+/\d+\)$`),
	}
	if len(out) != len(want) {
		t.Fatalf("printed %q", out)
	}
	for i, re := range want {
		if !re.MatchString(out[i]) {
			t.Errorf("line %d: %q, want %s", i, out[i], re)
		}
	}
}
