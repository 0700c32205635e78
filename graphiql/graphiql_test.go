package graphiql_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
)

func getPage(t *testing.T, method, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	req.Header.Set("Accept", "text/html,application/xhtml+xml")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// TestPageReferencesNoExternalHost: the page at /graphql loads every script
// and style from its own origin, under a CSP that allows nothing else, and
// each of them is served; HEAD answers like GET.
func TestPageReferencesNoExternalHost(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	res, html := getPage(t, http.MethodGet, srv.URL+"/graphql")
	if res.StatusCode != http.StatusOK || !strings.Contains(html, "graphiql.min.js") {
		t.Fatalf("GET /graphql as a browser: %d %.200s", res.StatusCode, html)
	}
	refs := regexp.MustCompile(`(?:src|href)="([^"]*)"`).FindAllStringSubmatch(html, -1)
	if len(refs) < 6 {
		t.Fatalf("found %d references in the page, want its scripts and styles", len(refs))
	}
	for _, m := range refs {
		ref := m[1]
		if !strings.HasPrefix(ref, "/") || strings.HasPrefix(ref, "//") {
			t.Errorf("the page references %q, not a path of its own origin", ref)
			continue
		}
		r, err := http.Get(srv.URL + ref)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", ref, r.StatusCode)
		}
	}
	csp := res.Header.Get("Content-Security-Policy")
	if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "script-src 'self';") || strings.Contains(csp, "http") {
		t.Errorf("CSP %q does not confine the page to its origin", csp)
	}
	head, body := getPage(t, http.MethodHead, srv.URL+"/graphql")
	if head.StatusCode != http.StatusOK || body != "" || head.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("HEAD /graphql: %d %q %q", head.StatusCode, head.Header.Get("Content-Type"), body)
	}
	if r, _ := getPage(t, http.MethodGet, srv.URL+"/graphiql/"); r.StatusCode != http.StatusNotFound {
		t.Errorf("GET /graphiql/: %d, want 404 (no listing)", r.StatusCode)
	}
}

// TestVendoredAssetsMatchTheirRecord: the embedded GraphiQL and React files
// are byte for byte the ones static/vendor/LICENSES.md records.
func TestVendoredAssetsMatchTheirRecord(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("static", "vendor", "LICENSES.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile(`^\| (\S+) \| .* \| ([0-9a-f]{64}) \|$`)
	seen := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		m := row.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		seen++
		b, err := os.ReadFile(filepath.Join("static", "vendor", m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != m[2] {
			t.Errorf("%s: sha256 %x, recorded %s", m[1], sum, m[2])
		}
	}
	entries, _ := os.ReadDir(filepath.Join("static", "vendor"))
	if seen == 0 || seen != len(entries)-1 { // every file but LICENSES.md has its row
		t.Fatalf("LICENSES.md records %d files, the folder holds %d", seen, len(entries)-1)
	}
}

// TestGraphiQLInChromium drives the page in a real browser that can reach
// only 127.0.0.1: a wrong secret is refused, client credentials sign in, a
// query runs, a subscription sees a change made through the API, sign-out
// forgets the token, a pasted token works; no CSP violation, and nothing
// is kept in the browser's storage.
func TestGraphiQLInChromium(t *testing.T) {
	t.Parallel()
	url, res := seedtest.URL(t, seed.Options{Tenant: "acme", Scale: 1})
	srv := apptest.Start(t, apptest.Options{DatabaseURL: url})
	tenant := apptest.Tenant{ID: res.TenantID, Slug: "acme", SubsidiaryID: res.SubsidiaryID}
	clientID, secret := srv.Client(t, tenant, domain.ScopeLoadRead, domain.ScopeTrailerRead)
	writer := srv.Token(t, tenant, domain.ScopeLoadUpdate)
	pasted := srv.Token(t, tenant, domain.ScopeTrailerRead)

	bctx := apptest.Browser(t, 1280, 800)
	ctx, cancel := context.WithTimeout(bctx, 90*time.Second)
	defer cancel()

	const response = `((document.querySelector('.graphiql-response .CodeMirror') || {}).CodeMirror || {getValue: () => ""}).getValue()`
	result := func(want string) chromedp.Action[chromedp.Void] {
		return chromedp.PollFunction[chromedp.Void](`(want) => `+response+`.includes(want)`,
			chromedp.WithPollingArgs(want), chromedp.WithPollingTimeout(20*time.Second))
	}
	setQuery := func(q string) chromedp.Action[chromedp.Void] {
		b, _ := json.Marshal(q)
		return chromedp.Evaluate[chromedp.Void](`document.querySelector('.graphiql-query-editor .CodeMirror').CodeMirror.setValue(` + string(b) + `)`)
	}
	run := chromedp.Click(chromedp.CSS(`.graphiql-execute-button`))
	watchCSP := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__csp = []; document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI));`,
		})
		return err
	})

	err := chromedp.Do(ctx,
		watchCSP,
		chromedp.Navigate(srv.URL+"/graphql"),
		chromedp.WaitVisible(chromedp.CSS(`.graphiql-query-editor .CodeMirror`)),
		// A wrong secret is refused and says why.
		chromedp.SendKeys(chromedp.CSS(`#client-id`), clientID),
		chromedp.SendKeys(chromedp.CSS(`#client-secret`), "hgcs_wrong"),
		chromedp.Click(chromedp.CSS(`#credentials-form button`)),
		chromedp.WaitVisible(chromedp.CSS(`#who[data-state="error"]`)),
		// The right one signs in; the default query runs.
		chromedp.SetValue(chromedp.CSS(`#client-secret`), secret),
		chromedp.Click(chromedp.CSS(`#credentials-form button`)),
		chromedp.WaitVisible(chromedp.CSS(`#who[data-state="signed-in"]`)),
	)
	if err != nil {
		// ctx may be spent: read what the page shows through the browser's own.
		shown, _ := chromedp.Run(bctx, chromedp.Evaluate[string](`document.querySelector("#who").outerHTML + " " + document.body.innerText.slice(0, 300)`))
		t.Fatalf("sign-in: %v (the page shows %q)", err, shown)
	}

	// The schema the page could not read before signing in is read after:
	// the docs explorer lists the Query fields.
	const docs = `(document.querySelector('.graphiql-doc-explorer') || {textContent: ""}).textContent`
	err = chromedp.Do(ctx,
		chromedp.Click(chromedp.CSS(`button[aria-label="Show Documentation Explorer"]`)),
		chromedp.Poll[chromedp.Void](docs+`.includes("Root Types")`, chromedp.WithPollingTimeout(20*time.Second)),
		chromedp.Evaluate[chromedp.Void](`[...document.querySelectorAll('.graphiql-doc-explorer a.graphiql-doc-explorer-type-name')].find((a) => a.textContent === "Query").click()`),
		chromedp.Poll[chromedp.Void](`[...document.querySelectorAll('.graphiql-doc-explorer .graphiql-doc-explorer-field-name')].some((a) => a.textContent === "trailers")`,
			chromedp.WithPollingTimeout(20*time.Second)),
	)
	if err != nil {
		shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](docs))
		t.Fatalf("after sign-in the docs explorer does not list the Query fields: %v (it shows %.200q)", err, shown)
	}
	if shown, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.textContent`)); err != nil || strings.Contains(shown, "Error fetching schema") {
		t.Fatalf("the page still says it could not fetch the schema (%v)", err)
	}
	if err := chromedp.Do(ctx, run, result(`"trailerNum"`)); err != nil {
		t.Fatalf("query: %v", err)
	}

	// A subscription sees a change made through the API.
	err = chromedp.Do(ctx,
		setQuery(`subscription { loadStatusChanged(filter: {loadNumbers: ["LD-1000004"]}) { type data { load { loadNumber status } } } }`),
		run,
	)
	if err != nil {
		t.Fatal(err)
	}
	// The subscription is live once the server counts it (no sleeping).
	deadline := time.Now().Add(20 * time.Second)
	for srv.GraphQL.Live.Members() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the page's subscription never reached the server")
		}
		time.Sleep(20 * time.Millisecond)
	}
	body, _ := json.Marshal(map[string]any{"query": `mutation { changeLoadStatus(loadNumber: "LD-1000004", status: Dispatched) { status } }`})
	req, _ := http.NewRequest("POST", srv.URL+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+writer)
	r, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r.Body)
	r.Body.Close()
	if !strings.Contains(string(b), `"Dispatched"`) {
		t.Fatalf("changeLoadStatus: %s", b)
	}
	if err := chromedp.Do(ctx, result(`"Dispatched"`)); err != nil {
		t.Fatalf("the subscription did not show the change: %v", err)
	}

	// Sign out: the next query goes without a token; a pasted one works.
	err = chromedp.Do(ctx,
		run, // stops the subscription
		chromedp.Click(chromedp.CSS(`#sign-out`)),
		chromedp.WaitVisible(chromedp.CSS(`#who[data-state="signed-out"]`)),
		setQuery(`{ trailers(first: 1) { items { trailerNum } } }`),
		run,
		result(`UNAUTHENTICATED`),
		chromedp.SendKeys(chromedp.CSS(`#pasted-token`), pasted),
		chromedp.Click(chromedp.CSS(`#token-form button`)),
		chromedp.WaitVisible(chromedp.CSS(`#who[data-state="signed-in"]`)),
		run,
		result(`"trailerNum"`),
	)
	if err != nil {
		t.Fatalf("sign-out and pasted token: %v", err)
	}

	csp, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp`))
	if err != nil {
		t.Fatal(err)
	}
	if len(csp) > 0 {
		t.Errorf("CSP violations: %v", csp)
	}
	stored, err := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify(localStorage) + JSON.stringify(sessionStorage) + document.cookie`))
	if err != nil {
		t.Fatal(err)
	}
	if stored != "{}{}" {
		t.Errorf("the page kept something in the browser's storage: %.300s", stored)
	}
}
