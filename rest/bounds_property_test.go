package rest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
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
	op           *openapi3.Operation // declares the statuses it may answer
}

// The served document and the server agree on every bound: for every JSON
// operation under /api/p/v1, each parameter and each body member in turn
// takes boundary values derived from its schema (lengths at the maximum in
// multi-byte characters and one past it, each enum value and its other
// spellings, each format's canonical and non-canonical forms, integers at
// and past their range, null, absent, the wrong type) while the rest stays
// the operation's example; then each pair of the parameters a rule between
// them names (x-parameters, x-not-before) takes the values their own
// schemas admit. The document alone decides which are valid
// (bounds_schema_test.go); the server must accept exactly those (2xx, or
// 404/409 for a resource that is missing or in another state) and refuse
// the others with 400/413/422 problem+json naming the input, and every
// answer must be a status the operation declares.
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
	for _, o := range jsonOperations(doc, "GET", "POST", "PATCH", "DELETE") { // multipart uploads: TestUploadFieldBounds
		if o.method == "POST" && o.path == "/api/p/v1/event-destinations" {
			continue // a broker destination is connected to on create: events/webhook's broker tests
		}
		ps := operationProbes(t, rng, doc, o.method, o.path, o.item, o.op, overrides)
		byOp[o.method+" "+o.path] = ps
		total += len(ps)
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

// operation is one operation of the served document.
type operation struct {
	method, path string
	item         *openapi3.PathItem
	op           *openapi3.Operation
}

// jsonOperations are the document's operations under /api/p/v1/ with one
// of methods and no body or a JSON one, by path.
func jsonOperations(doc *openapi3.T, methods ...string) []operation {
	var out []operation
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		if !strings.HasPrefix(path, "/api/p/v1/") {
			continue
		}
		item := doc.Paths.Value(path)
		for _, method := range methods {
			op := item.GetOperation(method)
			if op != nil && (op.RequestBody == nil || op.RequestBody.Value.Content["application/json"] != nil) {
				out = append(out, operation{method, path, item, op})
			}
		}
	}
	return out
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
	case !declares(p.op, res.StatusCode):
		return fmt.Sprintf("the server answers %d, which the document does not declare for %s", res.StatusCode, p.op.OperationID)
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

// declares reports whether op declares status among its responses (by
// code, or by a range such as 4XX).
func declares(op *openapi3.Operation, status int) bool {
	return op.Responses.Status(status) != nil
}

// namesField reports whether errors names field (or one of fields
// separated by |), a member inside it or the body holding it.
func namesField(errs map[string][]string, field string) bool {
	if strings.Contains(field, "|") {
		return slices.ContainsFunc(strings.Split(field, "|"), func(f string) bool { return namesField(errs, f) })
	}
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
	// The conditional request headers: TestCacheAnswersAreDeclared.
	params := slices.DeleteFunc(append(slices.Clone(item.Parameters), op.Parameters...),
		func(p *openapi3.ParameterRef) bool { return p.Value.In == "header" })
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
		p := probe{method: method, path: path, query: url.Values{}, op: op}
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
			if c.values == nil && prm.Value.In == "path" || c.values != nil && prm.Value.In == "path" && c.values[0] == "" {
				continue // no value: another route's path, not a value of this one
			}
			values := maps.Clone(base)
			if c.values == nil {
				delete(values, name)
			} else {
				values[name] = c.values
			}
			p := build(values, body)
			p.field, p.note = name, c.note
			p.valid, p.why = parametersValid(params, op, values)
			if c.valid != nil {
				p.valid = *c.valid
			}
			if name == "after" && p.valid && c.values != nil && strings.TrimSpace(c.values[0]) != "" {
				continue // a well-formed cursor this list did not issue: a 400 the document describes
			}
			out = append(out, p)
		}
	}
	// The rules between parameters (x-parameters, x-not-before): every
	// pair of the parameters a rule names, each taking the values its own
	// schema admits.
	named := ruleParameters(params, op)
	for i, a := range named {
		for _, b := range named[i+1:] {
			for _, va := range admitted(rng, a, overrides) {
				for _, vb := range admitted(rng, b, overrides) {
					values := maps.Clone(base)
					for _, x := range []struct {
						prm *openapi3.Parameter
						v   []string
					}{{a, va}, {b, vb}} {
						if x.v == nil {
							delete(values, x.prm.Name)
						} else {
							values[x.prm.Name] = x.v
						}
					}
					p := build(values, body)
					p.field, p.note = a.Name+"|"+b.Name, fmt.Sprintf("%s=%q with %s=%q", a.Name, va, b.Name, vb)
					p.valid, p.why = parametersValid(params, op, values)
					if later, _, ok := strings.Cut(p.why, " is before "); ok {
						p.field += "|" + later // the rule's refusal names the later one
					}
					out = append(out, p)
				}
			}
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

// parametersValid judges a request's query and path values as the
// document does: each parameter by its own schema (an empty value of one
// with allowEmptyValue is not given), then the rules between them: the
// operation's x-parameters, a JSON Schema of the parameters as one object
// (each value typed by its schema), and x-not-before.
func parametersValid(params openapi3.Parameters, op *openapi3.Operation, values map[string][]string) (bool, string) {
	given := map[string]any{}
	props := openapi3.Schemas{}
	for _, prm := range params {
		name, s := prm.Value.Name, prm.Value.Schema.Value
		vs, ok := values[name]
		if ok && prm.Value.AllowEmptyValue && len(vs) == 1 && vs[0] == "" {
			ok = false
		}
		if !ok {
			if prm.Value.Required {
				return false, name + " is required"
			}
			continue
		}
		if valid, why := textValid(s, vs); !valid {
			return false, name + ": " + why
		}
		given[name], props[name] = typedValue(s, vs), prm.Value.Schema
	}
	if ok, why := notBeforeValid(props, given); !ok {
		return false, why
	}
	if rule := parametersRule(op); rule != nil {
		if ok, why := schemaValid(rule, given); !ok {
			return false, "x-parameters: " + why
		}
	}
	return true, ""
}

// typedValue is a valid query value as the JSON value x-parameters reads.
func typedValue(s *openapi3.Schema, vs []string) any {
	switch {
	case s.Type.Includes(openapi3.TypeArray):
		out := make([]any, len(vs))
		for i, v := range vs {
			out[i] = v
		}
		return out
	case s.Type.Includes(openapi3.TypeInteger):
		var f float64
		_, _ = fmt.Sscan(vs[0], &f)
		return f
	case s.Type.Includes(openapi3.TypeBoolean):
		return vs[0] == "true"
	}
	return vs[0]
}

// parametersRule is the operation's x-parameters schema, nil without one.
func parametersRule(op *openapi3.Operation) *openapi3.Schema {
	raw, ok := op.Extensions["x-parameters"]
	if !ok {
		return nil
	}
	b, _ := json.Marshal(raw)
	var s openapi3.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		panic(err)
	}
	return &s
}

// ruleParameters are the parameters a rule between parameters names.
func ruleParameters(params openapi3.Parameters, op *openapi3.Operation) []*openapi3.Parameter {
	rule, _ := json.Marshal(op.Extensions["x-parameters"])
	var out []*openapi3.Parameter
	for _, prm := range params {
		name := prm.Value.Name
		other, _ := prm.Value.Schema.Value.Extensions["x-not-before"].(string)
		named := other != "" || strings.Contains(string(rule), `"`+name+`"`)
		for _, q := range params {
			if o, _ := q.Value.Schema.Value.Extensions["x-not-before"].(string); o == name {
				named = true
			}
		}
		if named && prm.Value.In == "query" {
			out = append(out, prm.Value)
		}
	}
	return out
}

// admitted are values of a query parameter its own schema admits (nil:
// absent), at most five: the empty value where it means absent, a blank
// one, the day before and after a date's example, then the first others.
func admitted(rng *rand.Rand, prm *openapi3.Parameter, overrides map[string]any) [][]string {
	out := [][]string{nil}
	s := prm.Schema.Value
	if prm.AllowEmptyValue {
		out = append(out, []string{""})
	}
	if ok, _ := textValid(s, []string{" "}); ok {
		out = append(out, []string{" "})
	}
	if d, err := time.Parse(time.DateOnly, fmt.Sprint(prm.Example)); err == nil && s.Format == "date" {
		out = append(out, []string{d.AddDate(0, 0, -40).Format(time.DateOnly)}, []string{d.AddDate(0, 0, 40).Format(time.DateOnly)})
	}
	for _, c := range textCandidates(rng, s, prm.Name, overrides[prm.Name]) {
		if ok, _ := textValid(s, c.values); ok && c.values != nil && len(out) < 5 && !slices.ContainsFunc(out, func(v []string) bool { return slices.Equal(v, c.values) }) {
			out = append(out, c.values)
		}
	}
	return out
}
