package apptest_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/lexer"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// Every stage of a GraphQL operation is bounded: a document of at most
// 100 KB is answered, or refused, within these bounds whatever its shape.
const (
	// maxRefusalAlloc bounds the bytes the process (server and this test's
	// client) allocates on one such request: work counted, not timed, so a
	// loaded machine cannot fail it. The largest case, 4,900 enum values,
	// allocates about 9 MiB.
	maxRefusalAlloc = 32 << 20
	// maxAnswerBytes bounds the answer: at most 100 errors, each short.
	maxAnswerBytes = 64 << 10
	// maxPeakGrowth bounds what one request makes the process hold.
	maxPeakGrowth = 64 << 20
	attackBytes   = 100 << 10
)

// spent is what one request cost the process. cpu is logged, never bounded.
type spent struct {
	cpu    time.Duration
	alloc  uint64
	peak   int64
	answer int
}

// measure sends body as a GraphQL POST and reads what the process spent.
func (e *env) measure(t *testing.T, body string) (*http.Response, []byte, spent) {
	t.Helper()
	apptest.ResetPeakRSS(t)
	before := apptest.ReadUsage(t)
	res, b := e.send(t, hostile{method: "POST", path: "/graphql", body: body})
	after := apptest.ReadUsage(t)
	return res, b, spent{cpu: after.CPU - before.CPU, alloc: after.Allocated - before.Allocated, peak: after.PeakRSS - before.RSS, answer: len(b)}
}

// within fails the test when s exceeds the bounds above.
func (s spent) within(t *testing.T, what string) {
	t.Helper()
	t.Logf("%s: CPU %v, allocated %d KiB, peak RSS +%d KiB, answer %d bytes", what, s.cpu, s.alloc>>10, s.peak>>10, s.answer)
	if s.alloc > maxRefusalAlloc {
		t.Errorf("%s: allocated %d KiB, bound %d KiB", what, s.alloc>>10, maxRefusalAlloc>>10)
	}
	if s.peak > maxPeakGrowth {
		t.Errorf("%s: peak RSS grew %d MiB, bound %d MiB", what, s.peak>>20, maxPeakGrowth>>20)
	}
	if s.answer > maxAnswerBytes {
		t.Errorf("%s: answer of %d bytes, bound %d", what, s.answer, maxAnswerBytes)
	}
}

type gqlAnswer struct {
	Data   json.RawMessage `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

func decodeAnswer(t *testing.T, b []byte) gqlAnswer {
	t.Helper()
	var a gqlAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		t.Fatalf("not a GraphQL answer: %v: %.300s", err, b)
	}
	return a
}

// repeat joins n items made by f, separated by sep.
func repeat(n int, sep string, f func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = f(i)
	}
	return strings.Join(parts, sep)
}

// upTo repeats f until the document would pass size bytes or come near
// the parser's token limit (20,000): the largest document of its shape that
// is parsed at all.
func upTo(size int, prefix, sep, suffix string, f func(i int) string) string {
	var sb strings.Builder
	sb.WriteString(prefix)
	toks := tokens(prefix) + tokens(suffix)
	for i := 0; ; i++ {
		s := f(i)
		n := tokens(s)
		if sb.Len()+len(s)+len(sep)+len(suffix) > size || toks+n > 19900 {
			break
		}
		if i > 0 {
			sb.WriteString(sep)
		}
		sb.WriteString(s)
		toks += n
	}
	sb.WriteString(suffix)
	return sb.String()
}

// tokens counts the GraphQL tokens of s.
func tokens(s string) int {
	lx := lexer.New(&ast.Source{Input: s})
	n := 0
	for {
		t, err := lx.ReadToken()
		if err != nil || t.Kind == lexer.EOF {
			return n
		}
		n++
	}
}

// fanOut is { ...F0 } where each fragment spreads the next twice: 2^n
// selections once expanded, from a document of under 1 KB.
func fanOut(n int, leaf string) string {
	var sb strings.Builder
	sb.WriteString("{ ...F0 }\n")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "fragment F%d on Query { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	fmt.Fprintf(&sb, "fragment F%d on Query { %s }\n", n, leaf)
	return sb.String()
}

// Many fields answering to one name (n²/2 "fields conflict" errors once:
// 499,500 errors and 120 MB for n = 1,000) are refused within the bounds.
func TestHostileGraphQLSameAlias(t *testing.T) {
	e := startEnv(t)
	for _, n := range []int{1000, 1500} {
		q := "{ " + repeat(n, " ", func(i int) string { return fmt.Sprintf(`a: load(loadNumber:"L%d"){id}`, i) }) + " }"
		res, b, s := e.measure(t, gqlBody(q, nil))
		s.within(t, fmt.Sprintf("n=%d (%d KB)", n, len(q)>>10))
		if res.StatusCode != http.StatusOK {
			t.Fatalf("n=%d: status %d: %.300s", n, res.StatusCode, b)
		}
		a := decodeAnswer(t, b)
		if len(a.Errors) == 0 || len(a.Errors) > 100 || a.Data != nil {
			t.Fatalf("n=%d: %d errors, data %s", n, len(a.Errors), a.Data)
		}
		if code := a.Errors[0].Extensions["code"]; code != "COMPLEXITY_LIMIT_EXCEEDED" && code != "GRAPHQL_VALIDATION_FAILED" {
			t.Fatalf("n=%d: code %v: %.300s", n, code, b)
		}
	}
}

// A fragment spread twice per level is 2^24 selections from under 1 KB:
// refused before anything expands it, at the root and below load().
func TestHostileGraphQLFragmentFanOut(t *testing.T) {
	e := startEnv(t)
	for name, q := range map[string]string{
		"root":   fanOut(24, "__typename"),
		"load()": strings.Replace(fanOut(24, "__typename"), "fragment F24 on Query { __typename }", `fragment F24 on Query { load(loadNumber:"L1"){id} }`, 1),
	} {
		res, b, s := e.measure(t, gqlBody(q, nil))
		s.within(t, name)
		a := decodeAnswer(t, b)
		if res.StatusCode != http.StatusOK || len(a.Errors) == 0 || a.Errors[0].Extensions["code"] != "COMPLEXITY_LIMIT_EXCEEDED" {
			t.Fatalf("%s: status %d: %.300s", name, res.StatusCode, b)
		}
	}
}

// A refused operation is charged to the client's cost budget: a client
// sending nothing but refusals runs out of budget and is answered 429.
func TestHostileGraphQLRefusalsCharged(t *testing.T) {
	t.Parallel()
	e := &env{log: &syncBuffer{}}
	e.srv = apptest.Start(t, apptest.Options{Log: e.log, Configure: func(c *app.Config) {
		c.GraphQLCostBudget, c.GraphQLCostRefill, c.GraphQLCostLimit = 1000, 1, 1000
	}})
	startToken(t, e)
	q := gqlBody("{ "+repeat(300, " ", func(i int) string { return fmt.Sprintf("a%d: nope", i) })+" }", nil)
	for i := 0; i < 100; i++ {
		res, b := e.send(t, hostile{method: "POST", path: "/graphql", body: q})
		if res.StatusCode == http.StatusTooManyRequests {
			a := decodeAnswer(t, b)
			if a.Errors[0].Extensions["code"] != "RATE_LIMITED" || res.Header.Get("Retry-After") == "" {
				t.Fatalf("429 without RATE_LIMITED and Retry-After: %s", b)
			}
			t.Logf("refused for its budget after %d refusals", i)
			return
		}
	}
	t.Fatal("100 refused operations never ran out of a budget of 1000 points")
}

// A table of 100 KB documents of every shape: each is answered or refused
// within the bounds above, never with a 5xx.
func TestHostileGraphQLShapes(t *testing.T) {
	e := startEnv(t)
	field := func(i int) string { return fmt.Sprintf("f%d", i) }
	cases := []struct{ name, query string }{
		{"aliases", upTo(attackBytes, "{ ", " ", " }", func(i int) string { return fmt.Sprintf("a%d: __typename", i) })},
		{"same alias, different arguments", upTo(attackBytes, "{ ", " ", " }", func(i int) string { return fmt.Sprintf(`a: load(loadNumber:"L%d"){id}`, i) })},
		{"same field, no alias", upTo(attackBytes, "{ ", " ", " }", func(i int) string { return fmt.Sprintf(`load(loadNumber:"L%d"){id}`, i) })},
		{"same alias, different fields", upTo(attackBytes, "{ ", " ", " }", func(i int) string {
			return []string{"a: eventTypes", "a: __typename", `a: load(loadNumber:"1"){id}`}[i%3]
		})},
		{"same alias nested", "{ " + repeat(8, " ", func(int) string {
			return `l: load(loadNumber:"1") { ` + repeat(8, " ", func(int) string {
				return "trips { " + repeat(8, " ", func(j int) string { return fmt.Sprintf("x: tripNumber x: id%d", j) }) + " }"
			}) + " }"
		}) + " }"},
		{"deep nesting", strings.Repeat("{a", 6600) + strings.Repeat("}", 6600)},
		{"deep nesting, too many tokens", strings.Repeat("{a", attackBytes/3) + strings.Repeat("}", attackBytes/3)},
		{"deep nesting in the schema", `{ load(loadNumber:"1") { ` + strings.Repeat("trips { load { ", 2400) + "id" + strings.Repeat(" } }", 2400) + " } }"},
		{"many fragments", upTo(attackBytes, "{ ...F0 } ", " ", "", func(i int) string {
			return fmt.Sprintf("fragment F%d on Query { __typename ...F%d }", i, i+1)
		})},
		{"fragment chain", upTo(attackBytes-40, "query { ...F0 } ", " ", " fragment Z on Query { __typename }", func(i int) string {
			return fmt.Sprintf("fragment F%d on Query { ...F%d __typename }", i, i+1)
		})},
		{"wide fan-out", "{ ...F0 } " + repeat(6, " ", func(i int) string {
			return fmt.Sprintf("fragment F%d on Query { %s }", i, strings.Repeat(fmt.Sprintf("...F%d ", i+1), 50))
		}) + " fragment F6 on Query { __typename }"},
		{"spreads of one fragment", upTo(attackBytes-40, "{ ", " ", " } fragment F on Query { __typename }", func(int) string { return "...F" })},
		{"inline fragments", upTo(attackBytes, "{ ", " ", " }", func(int) string { return "... on Query { __typename }" })},
		{"directives", upTo(attackBytes, "{ __typename ", " ", " }", func(int) string { return "@skip(if:false)" })},
		{"unknown directives", upTo(attackBytes, "{ __typename ", " ", " }", func(i int) string { return fmt.Sprintf("@d%d", i) })},
		{"variables", upTo(attackBytes, "query(", " ", ") { __typename }", func(i int) string { return fmt.Sprintf("$v%d: Int", i) })},
		{"unknown variable types", upTo(attackBytes, "query(", " ", ") { __typename }", func(i int) string { return fmt.Sprintf("$v%d: Strin%d", i, i) })},
		{"arguments", upTo(attackBytes, `{ load(loadNumber:"1" `, " ", ") { id } }", func(i int) string { return fmt.Sprintf("loadNumbr%d: 1", i) })},
		{"long string", `{ load(loadNumber:"` + strings.Repeat("x", attackBytes-40) + `") { id } }`},
		{"deep list value", `{ load(loadNumber:` + strings.Repeat("[", 9900) + strings.Repeat("]", 9900) + `) { id } }`},
		{"deep object value", `{ loads(filter:` + strings.Repeat("{a:", 6600) + "1" + strings.Repeat("}", 6600) + `) { totalCount } }`},
		{"enum values", upTo(attackBytes, `{ loads(filter:{statuses:[`, " ", "]}) { totalCount } }", func(i int) string { return fmt.Sprintf("Bookd%d", i) })},
		{"many operations", upTo(attackBytes, "", " ", "", func(i int) string { return fmt.Sprintf("query Q%d { __typename }", i) })},
		{"many operations sharing a fragment", upTo(40<<10, "", " ", "", func(i int) string { return fmt.Sprintf("query Q%d { ...F }", i) }) +
			upTo(5<<10, " fragment F on Query { ", " ", " }", func(i int) string { return fmt.Sprintf("a%d: __typename", i) })},
		{"unknown fields", upTo(attackBytes, "{ ", " ", " }", field)},
		{"unknown fields with suggestions", upTo(attackBytes, "{ ", " ", " }", func(i int) string { return "loda" })},
		// Just under the node bound (5,000): what validation itself costs.
		{"same alias, 1,600 fields", "{ " + repeat(1600, " ", func(i int) string { return fmt.Sprintf(`a: load(loadNumber:"L%d"){id}`, i) }) + " }"},
		{"same field, 1,600 fields", "{ " + repeat(1600, " ", func(i int) string { return fmt.Sprintf(`load(loadNumber:"L%d"){id}`, i) }) + " }"},
		{"same alias, 4,900 different fields", "{ " + repeat(4900, " ", func(i int) string { return fmt.Sprintf("a: f%d", i) }) + " }"},
		{"4,900 unknown fields", "{ " + repeat(4900, " ", field) + " }"},
		{"4,900 unknown fields with suggestions", "{ " + repeat(4900, " ", func(int) string { return "loda" }) + " }"},
		{"2,400 directives", "{ __typename " + repeat(2400, " ", func(int) string { return "@skip(if:false)" }) + " }"},
		{"2,400 unknown arguments", `{ load(loadNumber:"1" ` + repeat(2400, " ", func(i int) string { return fmt.Sprintf("loadNumbr%d: 1", i) }) + ") { id } }"},
		{"4,900 enum values", `{ loads(filter:{statuses:[` + repeat(4900, " ", func(i int) string { return fmt.Sprintf("Bookd%d", i) }) + "]}) { totalCount } }"},
		{"fragment chain of 90", "{ ...F0 } " + repeat(90, " ", func(i int) string { return fmt.Sprintf("fragment F%d on Query { ...F%d __typename }", i, i+1) }) +
			" fragment F90 on Query { __typename }"},
		{"nested same aliases across fragments", "{ ...A ...B } " + repeat(2, " ", func(k int) string {
			return fmt.Sprintf("fragment %c on Query { ", 'A'+k) + repeat(30, " ", func(i int) string {
				return fmt.Sprintf(`l: load(loadNumber:"1") { trips { x: tripNumber%d x: tripNumber } }`, k*i)
			}) + " }"
		})},
		{"introspection", upTo(attackBytes, "{ ", " ", " }", func(i int) string {
			return fmt.Sprintf("s%d: __schema { types { fields { type { fields { type { name } } } } } }", i)
		})},
	}
	for _, c := range cases {
		if len(c.query) > attackBytes+1024 {
			t.Fatalf("%s: %d bytes", c.name, len(c.query))
		}
		res, b, s := e.measure(t, gqlBody(c.query, map[string]any{}))
		s.within(t, fmt.Sprintf("%s (%d KB)", c.name, len(c.query)>>10))
		if res.StatusCode >= 500 {
			t.Errorf("%s: status %d: %.300s", c.name, res.StatusCode, b)
			continue
		}
		if a := decodeAnswer(t, b); len(a.Errors) > 100 {
			t.Errorf("%s: %d errors", c.name, len(a.Errors))
		}
	}
	if strings.Contains(e.log.String(), "level=ERROR") {
		t.Errorf("errors logged: %s", e.log.String())
	}
}

// With introspection off, nothing names the schema: no suggestions of
// fields, arguments, enum values or types, and __schema or __type under an
// alias is refused as a request error, not an internal one.
func TestHostileGraphQLIntrospectionOff(t *testing.T) {
	t.Parallel()
	e := &env{log: &syncBuffer{}}
	e.srv = apptest.Start(t, apptest.Options{Log: e.log, Configure: func(c *app.Config) { c.DisableIntrospection = true }})
	startToken(t, e)
	for _, q := range []string{
		`{ lod(loadNumber:"1") { id } }`,
		`{ load(loadNumbr:"1") { id } }`,
		`{ load(loadNumber:"1") { idd } }`,
		`{ load(loadNumber:"1") }`,
		`{ loads(filter:{statuses:[Bookd]}) { totalCount } }`,
		`{ loads(filter:{statuss:[]}) { totalCount } }`,
		`query($f: LoadFiltr) { loads(filter:$f) { totalCount } }`,
		`{ ... on Querry { __typename } }`,
	} {
		res, b := e.send(t, hostile{method: "POST", path: "/graphql", body: gqlBody(q, nil)})
		if res.StatusCode != http.StatusOK || !strings.Contains(string(b), "GRAPHQL_VALIDATION_FAILED") {
			t.Errorf("%s: status %d: %s", q, res.StatusCode, b)
		}
		if strings.Contains(string(b), "Did you mean") {
			t.Errorf("%s: a suggestion names the schema: %s", q, b)
		}
	}
	for _, q := range []string{
		`{ __schema { queryType { name } } }`,
		`{ s: __schema { queryType { name } } }`,
		`{ t: __type(name:"Load") { name } }`,
		`{ ... on Query { s: __schema { types { name } } } }`,
		`{ ...F } fragment F on Query { t: __type(name:"Query") { fields { name } } }`,
	} {
		res, b := e.send(t, hostile{method: "POST", path: "/graphql", body: gqlBody(q, nil)})
		a := decodeAnswer(t, b)
		if res.StatusCode != http.StatusOK || len(a.Errors) == 0 || a.Errors[0].Extensions["code"] != "FORBIDDEN" ||
			!strings.Contains(a.Errors[0].Message, "introspection is disabled") {
			t.Errorf("%s: status %d: %s", q, res.StatusCode, b)
		}
		if strings.Contains(string(b), `"queryType"`) || strings.Contains(string(b), `"fields"`) {
			t.Errorf("%s: schema in the answer: %s", q, b)
		}
	}
	if strings.Contains(e.log.String(), "level=ERROR") {
		t.Errorf("errors logged: %s", e.log.String())
	}
}

// startToken gives e a token with load:read on a fresh tenant.
func startToken(t *testing.T, e *env) {
	t.Helper()
	e.token = e.srv.Token(t, apptest.NewTenant(t, e.srv, "acme"), domain.ScopeLoadRead)
}
