package refdocs_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/haulgraph/haulgraph/apptest"
)

// operation is one operation of the served OpenAPI document: Redoc gives
// it the route #/<first tag>/<operationId> (lower case) and titles it with
// its summary.
type operation struct{ Route, Summary string }

// served reads the OpenAPI document the server serves: every operation of
// its paths, and those of its webhooks section (the event catalogue) with
// their event types.
func served(t *testing.T, base string) (operations []operation, events []string) {
	t.Helper()
	res, err := http.Get(base + "/api/p/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		Paths    map[string]map[string]json.RawMessage `json:"paths"`
		Webhooks map[string]map[string]json.RawMessage `json:"webhooks"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	add := func(where string, ops map[string]json.RawMessage) {
		for method, raw := range ops {
			switch method {
			case "get", "post", "put", "patch", "delete":
			default:
				continue
			}
			var op struct {
				OperationID string
				Summary     string
				Tags        []string
			}
			_ = json.Unmarshal(raw, &op)
			if op.Summary == "" || op.OperationID == "" || len(op.Tags) == 0 {
				t.Fatalf("%s %s has no summary, operationId or tag", method, where)
			}
			operations = append(operations, operation{"#/" + strings.ToLower(op.Tags[0]) + "/" + strings.ToLower(op.OperationID), op.Summary})
		}
	}
	for path, ops := range doc.Paths {
		add(path, ops)
	}
	for name, ops := range doc.Webhooks {
		add(name, ops)
		events = append(events, name)
	}
	sort.Slice(operations, func(i, j int) bool { return operations[i].Route < operations[j].Route })
	sort.Strings(events)
	if len(operations) < 20 || len(events) < 3 {
		t.Fatalf("the served document has %d operations and %d events", len(operations), len(events))
	}
	return operations, events
}

// channel is one channel of the served AsyncAPI document with the titles
// of its messages.
type channel struct {
	ID, Title string
	Messages  []string
}

func channels(t *testing.T, base string) []channel {
	t.Helper()
	res, err := http.Get(base + "/api/p/asyncapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	type ref struct {
		Ref string `json:"$ref"`
	}
	var doc struct {
		Channels map[string]struct {
			Title    string
			Messages map[string]ref
		}
		Components struct {
			Messages map[string]struct{ Title string }
		}
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var out []channel
	for id, c := range doc.Channels {
		ch := channel{ID: id, Title: c.Title}
		for _, m := range c.Messages {
			title := doc.Components.Messages[strings.TrimPrefix(m.Ref, "#/components/messages/")].Title
			if title == "" {
				t.Fatalf("channel %s: message %s has no title", id, m.Ref)
			}
			ch.Messages = append(ch.Messages, title)
		}
		sort.Strings(ch.Messages)
		out = append(out, ch)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	if len(out) < 4 {
		t.Fatalf("the served AsyncAPI document has %d channels", len(out))
	}
	return out
}

// missing polls the page until every one of want shows in the text of
// the elements sel matches, and answers those still absent at the deadline.
func missing(ctx context.Context, sel string, want []string) []string {
	const js = `(sel, want) => { const text = [...document.querySelectorAll(sel)].map((e) => e.textContent).join("\n");
		const left = want.filter((w) => !text.includes(w)); return left.length === 0 ? true : (window.__left = left, false); }`
	wait, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if chromedp.Do(wait, chromedp.PollFunction[chromedp.Void](js, chromedp.WithPollingArgs(sel, want))) == nil {
		return nil
	}
	left, _ := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__left || ["(nothing rendered)"]`))
	return left
}

// TestReferenceInChromium opens /docs in a real browser against a running
// server: Redoc shows every operation of the served OpenAPI document and
// every event type of its webhooks section; /docs/events shows each
// channel of the AsyncAPI document with every message it carries; neither
// page breaks its CSP, throws, or loads anything from another origin; and
// GraphiQL's page links the reference.
func TestReferenceInChromium(t *testing.T) {
	t.Parallel()
	srv := apptest.Start(t, apptest.Options{})
	operations, events := served(t, srv.URL)
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/graphql", nil)
	req.Header.Set("Accept", "text/html")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	gq, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(gq), `href="/docs"`) {
		t.Errorf("GraphiQL's page does not link the reference: %.300s", gq)
	}

	bctx := apptest.Browser(t, 1280, 900)
	ctx, cancel := context.WithTimeout(bctx, 3*time.Minute)
	defer cancel()
	watch := chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		_, err := cdp.Call(ctx, t, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{
			Source: `window.__csp = []; document.addEventListener("securitypolicyviolation", (e) => window.__csp.push(e.violatedDirective + " " + e.blockedURI + " " + e.sourceFile + ":" + e.lineNumber));
				window.__errors = []; window.addEventListener("error", (e) => window.__errors.push(String(e.message) + " " + e.filename + ":" + e.lineno + ":" + e.colno + " " + (e.error && e.error.stack)));`,
		})
		return err
	})
	foreign := `performance.getEntriesByType("resource").map((e) => e.name).filter((u) => !u.startsWith(location.origin) && !u.startsWith("blob:") && !u.startsWith("data:"))`
	check := func(name string) {
		t.Helper()
		csp, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__csp`))
		if err != nil {
			t.Fatal(err)
		}
		if len(csp) > 0 {
			t.Errorf("%s: CSP violations: %v", name, csp)
		}
		errs, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`window.__errors`))
		if err != nil {
			t.Fatal(err)
		}
		if len(errs) > 0 {
			t.Errorf("%s: uncaught errors: %v", name, errs)
		}
		out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](foreign))
		if err != nil {
			t.Fatal(err)
		}
		if len(out) > 0 {
			t.Errorf("%s: loaded from another origin: %v", name, out)
		}
	}

	if err := chromedp.Do(ctx, watch, chromedp.Navigate(srv.URL+"/docs")); err != nil {
		t.Fatal(err)
	}
	if left := missing(ctx, "#redoc", []string{"Webhooks", "Settlements"}); len(left) > 0 {
		shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText.slice(0, 600)`))
		t.Fatalf("/docs did not render (the page shows %q)", shown)
	}
	// Each operation, webhook events included, on its own route.
	for _, op := range operations {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`location.hash = `+strconv.Quote(op.Route))); err != nil {
			t.Fatal(err)
		}
		if left := missing(ctx, "#redoc", []string{op.Summary}); len(left) > 0 {
			shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash + " " + document.body.innerText.slice(0, 400)`))
			t.Fatalf("/docs%s does not show %q (the page shows %q)", op.Route, op.Summary, shown)
		}
	}
	check("/docs")

	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/docs/events")); err != nil {
		t.Fatal(err)
	}
	// Each channel on its own route shows every message it carries, titled
	// by event type (webhook.verification included).
	seen := map[string]bool{}
	for _, ch := range channels(t, srv.URL) {
		if err := chromedp.Do(ctx, chromedp.Evaluate[chromedp.Void](`location.hash = `+strconv.Quote("#/channels/"+strings.ToLower(ch.ID)))); err != nil {
			t.Fatal(err)
		}
		if left := missing(ctx, "#redoc", append([]string{ch.Title}, ch.Messages...)); len(left) > 0 {
			shown, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.hash + " " + document.body.innerText.slice(0, 400)`))
			t.Fatalf("/docs/events#/channels/%s does not show %q (the page shows %q)", ch.ID, left, shown)
		}
		for _, m := range ch.Messages {
			seen[strings.Fields(m)[len(strings.Fields(m))-1]] = true
			seen[strings.Fields(m)[0]] = true
		}
	}
	for _, e := range events {
		if !seen[e] {
			t.Errorf("no AsyncAPI message is titled by event type %s", e)
		}
	}
	check("/docs/events")
	if t.Failed() {
		return
	}
	if got, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`)); strings.Contains(got, "could not be shown") {
		t.Fatalf("/docs/events reports an error: %.300s", got)
	}
}
