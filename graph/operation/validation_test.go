package operation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
	"github.com/vektah/gqlparser/v2/validator"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"

	"github.com/haulgraph/haulgraph/graph/generated"
)

var testSchema = generated.NewExecutableSchema(generated.Config{}).Schema()

func validateWith(t testing.TB, q string, rule core.Rule) gqlerror.List {
	t.Helper()
	doc, err := parser.ParseQuery(&ast.Source{Input: q})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return validator.ValidateWithRules(testSchema, doc, rules.NewRules(rule))
}

// mergeableFields agrees with gqlparser's OverlappingFieldsCanBeMerged on
// what conflicts, and goes further only where that rule compares less than
// the spec asks (list and object arguments by their elements; a leaf and an
// object under one name, which graphql-js refuses too).
func TestMergeableFieldsAgreesWithGqlparser(t *testing.T) {
	t.Parallel()
	ours := core.Rule{Name: "Ours", RuleFunc: mergeableFields(1 << 20)}
	for _, c := range []struct {
		q        string
		conflict bool
	}{
		{`{ load(loadNumber:"1"){id} load(loadNumber:"1"){loadNumber} }`, false},
		{`{ a: load(loadNumber:"1"){id} a: load(loadNumber:"1"){id} }`, false},
		{`{ ...F load(loadNumber:"1"){id} } fragment F on Query { load(loadNumber:"1"){ loadNumber } }`, false},
		{`query($n:String!){ a: load(loadNumber:$n){id} a: load(loadNumber:$n){id} }`, false},
		{`{ load(loadNumber:"1") { ... on Load { id } id } }`, false},
		{`{ t: __typename t: __typename }`, false},
		{`{ events { nodes { ... on LoadEvent { x: cursor } ... on TripEvent { x: type } } } }`, false},
		// An event's id is an ID!, its type a String!: two shapes.
		{`{ events { nodes { ... on LoadEvent { x: id } ... on TripEvent { x: type } } } }`, true},
		{`{ events { nodes { ... on LoadEvent { data { load { x: loadNumber } } } ... on TripEvent { data { load { x: commodity } } } } } }`, false},
		{`{ ...F ...F } fragment F on Query { a: eventTypes }`, false},
		{`{ a: load(loadNumber:"1"){id} a: load(loadNumber:"2"){id} }`, true},
		{`{ a: eventTypes a: __typename }`, true},
		{`{ load(loadNumber:"1"){ x: id x: loadNumber } }`, true},
		{`{ l: load(loadNumber:"1"){ trips { t: tripNumber } } l: load(loadNumber:"1"){ trips { t: id } } }`, true},
		{`{ ...F a: eventTypes } fragment F on Query { a: __typename }`, true},
		{`{ ...F ...G } fragment F on Query { a: eventTypes } fragment G on Query { a: __typename }`, true},
		{`{ load(loadNumber:"1"){ x: id } load(loadNumber:"1"){ x: status } }`, true},
		{`query($a:String!,$b:String!){ x: load(loadNumber:$a){id} x: load(loadNumber:$b){id} }`, true},
		{`{ events { nodes { ... on LoadEvent { data { load { x: id } } } ... on TripEvent { data { load { x: loadNumber } } } } } }`, true},
		{`{ events { nodes { ... on LoadEvent { x: id } } } events { nodes { ... on LoadEvent { x: type } } } }`, true},
		{`{ l: load(loadNumber:"1"){ ...T } l: load(loadNumber:"1"){ trips { t: id } } } fragment T on Load { trips { t: status } }`, true},
	} {
		theirs := len(validateWith(t, c.q, rules.OverlappingFieldsCanBeMergedRule)) > 0
		got := validateWith(t, c.q, ours)
		if theirs != c.conflict || (len(got) > 0) != c.conflict {
			t.Errorf("%s: gqlparser %v, ours %v, want %v", c.q, theirs, got, c.conflict)
		}
	}
	for _, q := range []string{
		`{ a: loads(filter:{statuses:[Open]}){totalCount} a: loads(filter:{statuses:[Quoted]}){totalCount} }`,
		`{ events { nodes { ... on LoadEvent { x: id } ... on TripEvent { x: data { load { id } } } } } }`,
	} {
		if len(validateWith(t, q, ours)) == 0 {
			t.Errorf("%s: no conflict", q)
		}
	}
}

// Many fields of one response name cost one comparison each and one error
// in all (gqlparser's rule: n²/2 of each).
func TestMergeableFieldsLinear(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("{ ")
	for i := range 4000 {
		fmt.Fprintf(&b, `a: load(loadNumber:"L%d"){id} `, i)
	}
	b.WriteString("}")
	// A budget linear in the fields (they take about 4 units each):
	// comparing each pair (8 million) would exceed it
	// and answer "too many to check" instead of the one conflict.
	errs := validateWith(t, b.String(), core.Rule{Name: "Ours", RuleFunc: mergeableFields(8 * 4000)})
	if len(errs) != 1 || strings.Contains(errs[0].Message, "too many to check") {
		t.Errorf("errors %v; want the one conflict, found within a linear budget", errs)
	}
}

// The error list ends after maxErrors, the last saying so.
func TestValidationErrorsCapped(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("{ ")
	for i := range 500 {
		fmt.Fprintf(&b, "f%d ", i)
	}
	b.WriteString("}")
	doc, err := parser.ParseQuery(&ast.Source{Input: b.String()})
	if err != nil {
		t.Fatal(err)
	}
	errs := validator.ValidateWithRules(testSchema, doc, ValidationRules(10, 1000, true)())
	if len(errs) != 10 || !strings.Contains(errs[9].Message, "more than 9 errors") {
		t.Errorf("%d errors: %v", len(errs), errs)
	}
}

// checkDocument sizes fragments once: 2^40 selections are refused at once.
func TestCheckDocumentFanOut(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("{ ...F0 }\n")
	for i := range 40 {
		fmt.Fprintf(&b, "fragment F%d on Query { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	b.WriteString("fragment F40 on Query { __typename }")
	doc, err := parser.ParseQuery(&ast.Source{Input: b.String()})
	if err != nil {
		t.Fatal(err)
	}
	if e := checkDocument(doc, DefaultMaxNodes, DefaultMaxNesting); e == nil || e.Extensions["code"] != CodeComplexity {
		t.Fatalf("2^40 selections: %v", e)
	}
	cyc, _ := parser.ParseQuery(&ast.Source{Input: `{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }`})
	if e := checkDocument(cyc, DefaultMaxNodes, DefaultMaxNesting); e == nil || !strings.Contains(e.Message, "within itself") {
		t.Fatalf("cycle: %v", e)
	}
}

// FuzzDocumentBounds: for any document (raw text, or generated from the
// schema by genDocument), the bounds, validation and pricing never panic;
// a document within the bounds is answered with at most maxErrors errors;
// in a document otherwise valid, every conflict gqlparser's
// overlapping-fields rule finds, mergeableFields finds too.
func FuzzDocumentBounds(f *testing.F) {
	for _, s := range []string{
		"\x00{ a: load(loadNumber:\"1\"){id} a: load(loadNumber:\"2\"){id} }",
		"\x00{ ...F0 } fragment F0 on Query { ...F1 ...F1 } fragment F1 on Query { __typename }",
		"\x00{ events { nodes { ... on LoadEvent { x: id } ... on TripEvent { x: type } } } }",
		"\x00query($a: String!) { load(loadNumber: $a) { trips { id } } } fragment U on Query { eventTypes }",
		"\x01\x03\x07\x02\x09\x04\x01\x00\x05\x02\x08\x06\x03\x01\x02\x00\x04\x07",
		"\x01\xff\x10\x20\x30\x40\x50\x60\x70\x80\x90\xa0\xb0\xc0\xd0\xe0\xf0",
	} {
		f.Add([]byte(s))
	}
	const maxNodes, maxNesting, maxErrors = 400, 12, 20
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		q := string(in[1:])
		if in[0]%2 == 1 {
			q = genDocument(in[1:])
		}
		doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: q}, ParserTokenLimit)
		if err != nil || checkDocument(doc, maxNodes, maxNesting) != nil {
			return
		}
		errs := validator.ValidateWithRules(testSchema, doc, ValidationRules(maxErrors, OverlapWork*maxNodes, in[0]%4 < 2)())
		if len(errs) > maxErrors {
			t.Fatalf("%q: %d errors", q, len(errs))
		}
		if len(errs) == 0 {
			for _, o := range doc.Operations {
				w := newWalker(doc, nil, testSchema)
				if w.shape(o.SelectionSet) == nil && (w.depth(o.SelectionSet, 0) < 0 || w.cost(o.SelectionSet, testSchema.Query) < 0) {
					t.Fatalf("%q: negative depth or cost", q)
				}
			}
		}
		for _, e := range errs {
			if e.Rule != rules.OverlappingFieldsCanBeMergedRule.Name {
				return // compared on otherwise valid documents only
			}
		}
		theirs, _ := parser.ParseQuery(&ast.Source{Input: q})
		ours, _ := parser.ParseQuery(&ast.Source{Input: q})
		if len(validator.ValidateWithRules(testSchema, theirs, rules.NewRules(rules.OverlappingFieldsCanBeMergedRule))) > 0 &&
			len(validator.ValidateWithRules(testSchema, ours, rules.NewRules(core.Rule{Name: "Ours", RuleFunc: mergeableFields(1 << 20)}))) == 0 {
			t.Fatalf("%q: gqlparser finds a conflict mergeableFields does not", q)
		}
	})
}

// genDocument writes a query over the schema steered by b: fields of the
// parent type under a few aliases with a few argument values, inline
// fragments on union members, and spreads of two fragments on Query.
func genDocument(b []byte) string {
	next := func() int {
		if len(b) == 0 {
			return 0
		}
		c := int(b[0])
		b = b[1:]
		return c
	}
	var sel func(sb *strings.Builder, def *ast.Definition, depth int)
	sel = func(sb *strings.Builder, def *ast.Definition, depth int) {
		sb.WriteString("{ ")
		for n := 1 + next()%3; n > 0 && len(b) > 0; n-- {
			c := next()
			switch {
			case def.Kind == ast.Union:
				t := def.Types[c%len(def.Types)]
				sb.WriteString("... on " + t + " ")
				sel(sb, testSchema.Types[t], depth+1)
				continue
			case def.Name == "Query" && c%7 == 0:
				fmt.Fprintf(sb, "...F%d ", next()%2)
				continue
			}
			fd := def.Fields[c%len(def.Fields)]
			if a := next() % 4; a > 0 {
				fmt.Fprintf(sb, "%c: ", 'a'+a-1)
			}
			sb.WriteString(fd.Name)
			var args []string
			for _, a := range fd.Arguments {
				if tn := a.Type.Name(); (tn == "String" || tn == "ID" || tn == "Int") && a.Type.Elem == nil {
					args = append(args, fmt.Sprintf(`%s: "%d"`, a.Name, next()%2))
					if tn == "Int" {
						args[len(args)-1] = fmt.Sprintf("%s: %d", a.Name, next()%2+1)
					}
				}
			}
			if len(args) > 0 {
				sb.WriteString("(" + strings.Join(args, ", ") + ")")
			}
			sb.WriteString(" ")
			if t := testSchema.Types[fd.Type.Name()]; t != nil && !t.IsLeafType() {
				if depth > 5 || len(b) == 0 {
					sb.WriteString("{ __typename } ")
				} else {
					sel(sb, t, depth+1)
				}
			}
		}
		sb.WriteString("} ")
	}
	var sb strings.Builder
	sel(&sb, testSchema.Query, 0)
	for i := range 2 {
		fmt.Fprintf(&sb, "fragment F%d on Query ", i)
		sel(&sb, testSchema.Query, 1)
	}
	return sb.String()
}
