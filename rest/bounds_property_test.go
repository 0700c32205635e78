package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// boundsSeed makes the property test's values reproducible; a failure
// prints the request that broke the agreement.
const boundsSeed = 20261127

// publicResolver answers every webhook host with a public address, so that
// a webhook URL is judged by its spelling, not by this machine's DNS.
type publicResolver struct{}

func (publicResolver) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil
}

// probe is one request the property test sends: the operation's example
// with one input changed, and whether the served document admits it.
type probe struct {
	method, path string
	query        url.Values
	body         []byte // nil: none
	field        string // the input changed, as the client names it
	note         string
	valid        bool
	why          string
}

// The served document and the server agree on every bound: for every JSON
// operation under /api/p/v1, each parameter and each body member in turn
// takes boundary values derived from its schema (lengths at the maximum in
// multi-byte characters and one past it, each enum value and its other
// spellings, each format's canonical and non-canonical forms, integers at
// and past their range, null, absent, the wrong type) while the rest stays
// the operation's example. The document alone decides which are valid
// (bounds_schema_test.go); the server must accept exactly those (2xx, or
// 404/409 for a resource that is missing or in another state) and refuse
// the others with 400/413/422 problem+json naming the input.
func TestDocumentAndServerAgreeOnBounds(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{Configure: func(c *app.Config) { c.WebhookResolver = publicResolver{} }})
	srv, doc := f.srv, f.oas.doc
	token := srv.Token(t, f.tenant, append(slices.Clone(readScopes), domain.ScopeWebhookManage)...)
	subsidiary := f.tenant.SubsidiaryID.String()
	overrides := map[string]any{
		"SubsidiaryId": subsidiary,
		// Recover takes the last 30 days only: an hour ago, to the second.
		"Since": time.Now().Add(-time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339),
		"since": time.Now().Add(-time.Hour).UTC().Truncate(time.Second).Format(time.RFC3339),
	}
	rng := rand.New(rand.NewPCG(boundsSeed, 0))
	byOp := map[string][]probe{}
	total := 0
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		if !strings.HasPrefix(path, "/api/p/v1/") {
			continue
		}
		item := doc.Paths.Value(path)
		for _, method := range []string{"GET", "POST", "PATCH", "DELETE"} {
			op := item.GetOperation(method)
			if op == nil || op.RequestBody != nil && op.RequestBody.Value.Content["application/json"] == nil {
				continue // multipart uploads: TestUploadFieldBounds
			}
			if method == "POST" && path == "/api/p/v1/event-destinations" {
				continue // a broker destination is connected to on create: events/webhook's broker tests
			}
			ps := operationProbes(t, rng, doc, method, path, item, op, overrides)
			byOp[method+" "+path] = ps
			total += len(ps)
		}
	}
	if total < 300 {
		t.Fatalf("only %d probes: the document's inputs were not walked", total)
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	counts := map[bool]int{}
	for op, ps := range byOp {
		wg.Add(1)
		go func() { // each operation's probes in order: exports run one at a time
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			for _, p := range ps {
				msg := sendProbe(srv.URL, token, p)
				// The previous export's slot is freed just after its last
				// byte: a 429 is asked again, a bounded number of times.
				for try := 0; try < 50 && strings.Contains(msg, "answers 429"); try++ {
					msg = sendProbe(srv.URL, token, p)
				}
				mu.Lock()
				counts[p.valid]++
				if msg != "" {
					t.Errorf("%s: %s %s (%s = %s): %s", op, p.method, p.path, p.field, p.note, msg)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d probes over %d operations: %d valid, %d invalid (seed %d)", total, len(byOp), counts[true], counts[false], boundsSeed)
}

// sendProbe sends p and returns how the answer breaks the agreement, "" if
// it keeps it.
func sendProbe(base, token string, p probe) string {
	u := base + p.path
	if len(p.query) > 0 {
		u += "?" + p.query.Encode()
	}
	var body *strings.Reader
	if p.body != nil {
		body = strings.NewReader(string(p.body))
	} else {
		body = strings.NewReader("")
	}
	req, err := http.NewRequest(p.method, u, body)
	if err != nil {
		return err.Error()
	}
	req.Header.Set("Authorization", "Bearer "+token)
	if p.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err.Error()
	}
	answer, _ := io.ReadAll(res.Body) // whole: an export holds its slot until its stream ends
	res.Body.Close()
	var prob problem
	_ = json.Unmarshal(answer, &prob)
	accepted := res.StatusCode/100 == 2 || res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusConflict
	refused := res.StatusCode == http.StatusBadRequest || res.StatusCode == http.StatusRequestEntityTooLarge || res.StatusCode == http.StatusUnprocessableEntity
	switch {
	case p.valid && !accepted:
		return fmt.Sprintf("the document admits it but the server answers %d %v", res.StatusCode, prob.Errors)
	case !p.valid && !refused:
		return fmt.Sprintf("the document refuses it (%s) but the server answers %d", p.why, res.StatusCode)
	case refused && res.Header.Get("Content-Type") != "application/problem+json":
		return "a refusal that is not problem+json"
	case refused && res.StatusCode != http.StatusRequestEntityTooLarge && !namesField(prob.Errors, p.field):
		return fmt.Sprintf("the refusal does not name %s: %v", p.field, prob.Errors)
	}
	return ""
}

// namesField reports whether errors names field, a member inside it or
// the body holding it.
func namesField(errs map[string][]string, field string) bool {
	for k := range errs {
		if k == field || k == "body" || strings.HasPrefix(k, field+".") || strings.HasPrefix(k, field+"[") ||
			strings.HasPrefix(field, k+".") {
			return true
		}
	}
	return false
}

// operationProbes derives the probes of one operation from its example.
func operationProbes(t *testing.T, rng *rand.Rand, doc *openapi3.T, method, path string, item *openapi3.PathItem, op *openapi3.Operation, overrides map[string]any) []probe {
	t.Helper()
	params := append(slices.Clone(item.Parameters), op.Parameters...)
	base := map[string][]string{}
	for _, p := range params {
		if p.Value.Required || p.Value.In == "path" {
			ex := p.Value.Example
			if ex == nil {
				t.Fatalf("%s %s: parameter %s has no example", method, path, p.Value.Name)
			}
			base[p.Value.Name] = []string{fmt.Sprint(ex)}
		}
	}
	var exclusive [][]string
	if raw, ok := op.Extensions["x-exclusive-parameters"]; ok {
		b, _ := json.Marshal(raw)
		_ = json.Unmarshal(b, &exclusive)
	}
	var body map[string]any
	var bodySchema *openapi3.Schema
	if op.RequestBody != nil {
		bodySchema = op.RequestBody.Value.Content["application/json"].Schema.Value
		b, _ := json.Marshal(bodySchema.Example)
		if bodySchema.Example == nil {
			b = []byte("{}")
		}
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatal(err)
		}
		for k, v := range overrides {
			if _, ok := bodySchema.Properties[k]; ok {
				body[k] = v
			}
		}
		if ok, why := schemaValid(bodySchema, body); !ok {
			t.Fatalf("%s %s: the example body is invalid: %s", method, path, why)
		}
	}
	build := func(values map[string][]string, b any) probe {
		p := probe{method: method, path: path, query: url.Values{}}
		for _, prm := range params {
			vs, ok := values[prm.Value.Name]
			if !ok {
				continue
			}
			if prm.Value.In == "path" {
				p.path = strings.ReplaceAll(p.path, "{"+prm.Value.Name+"}", url.PathEscape(vs[0]))
			} else {
				p.query[prm.Value.Name] = vs
			}
		}
		if op.RequestBody != nil {
			p.body, _ = json.Marshal(b)
		}
		return p
	}
	var out []probe
	for _, prm := range params {
		name, s := prm.Value.Name, prm.Value.Schema.Value
		for _, c := range textCandidates(rng, s, name, overrides[name]) {
			values := map[string][]string{}
			for k, v := range base {
				values[k] = v
			}
			inGroup := false
			for _, group := range exclusive {
				if slices.Contains(group, name) {
					inGroup = true
					if c.values != nil { // given, it is the one of its group
						for _, other := range group {
							delete(values, other)
						}
					}
				}
			}
			if c.values == nil || prm.Value.In == "path" && c.values[0] == "" {
				if prm.Value.In == "path" {
					continue // no value: another route's path, not a value of this one
				}
				delete(values, name)
			} else {
				values[name] = c.values
			}
			p := build(values, body)
			p.field, p.note = name, c.note
			switch {
			case c.values == nil && inGroup:
				// x-exclusive-parameters: exactly one of the group.
				p.valid = false
				for _, group := range exclusive {
					if slices.Contains(group, name) {
						p.valid = slices.ContainsFunc(group, func(o string) bool { return p.query.Has(o) })
					}
				}
				p.why = "exactly one of its group"
			case c.values == nil:
				p.valid = !prm.Value.Required
				p.why = "required"
			case name == "after" && c.valid == nil:
				continue // an opaque cursor: only its length is the document's
			default:
				p.valid, p.why = textValid(s, c.values)
			}
			if c.valid != nil {
				p.valid = *c.valid
			}
			out = append(out, p)
		}
	}
	if bodySchema != nil {
		for _, c := range bodyCandidates(rng, bodySchema, body, "") {
			p := build(base, c.body)
			p.field, p.note = c.field, c.note
			p.valid, p.why = schemaValid(bodySchema, onTheWire(c.body))
			out = append(out, p)
		}
		p := build(base, body)
		p.body = append(p.body[:len(p.body)-1], []byte(`,"x":"`+strings.Repeat("a", 1<<20)+`"}`)...)
		p.field, p.note, p.why = "body", "over 1 MiB", "the body bound"
		out = append(out, p)
	}
	return out
}
