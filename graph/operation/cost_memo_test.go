package operation

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

// Shape, depth and cost size each fragment once: a fragment spread twice
// per level for 40 levels (2^40 selections) is walked 41 times, not 2^40,
// and its aliases counted with their multiplicity.
func TestWalkerRemembersFragments(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("{ ...F0 }\n")
	for i := range 40 {
		fmt.Fprintf(&b, "fragment F%d on Query { ...F%d ...F%d }\n", i, i+1, i+1)
	}
	b.WriteString(`fragment F40 on Query { a: load(loadNumber:"1") { trips { id } } }`)
	doc, err := parser.ParseQuery(&ast.Source{Input: b.String()})
	if err != nil {
		t.Fatal(err)
	}
	w := newWalker(doc, nil, testSchema)
	set := doc.Operations[0].SelectionSet
	c, d, cost := w.count(set, true), w.depth(set, 0), w.cost(set, testSchema.Query)
	if len(w.counts) > 41 || len(w.depths) > 41 || len(w.costs) > 41 {
		t.Errorf("fragments sized %d, %d and %d times; want each of the 41 once", len(w.counts), len(w.depths), len(w.costs))
	}
	if c.aliases != 1<<40 || d != 3 || cost != min(6<<40, costCeiling) {
		t.Errorf("aliases %d, depth %d, cost %d", c.aliases, d, cost)
	}
	if e := w.shape(set); e == nil || !strings.Contains(e.Message, "aliases") {
		t.Errorf("shape: %v", e)
	}
}
