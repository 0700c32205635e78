package operation

import (
	"context"
	"fmt"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

// Document bounds: what a document may ask of validation and pricing,
// checked before either runs. Every later stage walks at most what these
// admit, so that a refusal costs about as much as reading the document.
const (
	// DefaultMaxNodes bounds the selections, directives and argument values
	// of a document, a fragment counted each time it is spread (GraphiQL's
	// introspection query has about 300).
	DefaultMaxNodes = 5000
	// DefaultMaxNesting bounds how deep selection sets and values nest in
	// the text of one definition (GraphiQL's introspection query: 9).
	DefaultMaxNesting = 32
	// DefaultMaxErrors bounds the errors one answer lists (graphql-js's
	// maxErrors).
	DefaultMaxErrors = 100
	// ParserTokenLimit bounds the tokens of a document.
	ParserTokenLimit = 20000
	// OverlapWork is the overlapping-fields check's budget per operation,
	// in field visits per admitted selection.
	OverlapWork = 4
	// A document refused before it runs costs DefaultRefusalCost points
	// plus DefaultRefusalCostPerKiB a KiB (1,100 for 100 KiB), at most a
	// tenth of the budget: at the default refill a client sustains about
	// 7 refusals of 100 KiB a second, each under 50 ms of CPU.
	DefaultRefusalCost       = 100
	DefaultRefusalCostPerKiB = 10
)

// DocumentBounds is the first stage of every operation, in every
// transport: it parses the document once more than a cached one needs and
// refuses it when its nodes, counted with their multiplicity, or its
// nesting exceed the bounds. Fragments are sized once each (memoised), so a fragment spread
// twice per level for 24 levels is refused after 24 steps, not 2^24.
//
// It first takes the deposit of a refusal from the client's cost budget
// (the cost extension returns it when the operation runs): a client whose
// budget cannot pay for a refusal is answered 429 before its document is
// read, and one sending only refusals spends its budget on them.
type DocumentBounds struct {
	MaxNodes, MaxNesting int
	// Validated holds the documents that passed validation: within bounds.
	Validated                      graphql.Cache[*ast.QueryDocument]
	Throttle                       *Throttle
	RefusalCost, RefusalCostPerKiB int
}

var _ graphql.OperationParameterMutator = DocumentBounds{}

func (DocumentBounds) ExtensionName() string                   { return "DocumentBounds" }
func (DocumentBounds) Validate(graphql.ExecutableSchema) error { return nil }
func (b DocumentBounds) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if p.Query == "" {
		return nil
	}
	if err := b.deposit(ctx, len(p.Query)); err != nil {
		return err
	}
	if _, ok := b.Validated.Get(ctx, p.Query); ok {
		return nil
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: p.Query}, ParserTokenLimit)
	if err != nil {
		gqlErr, ok := err.(*gqlerror.Error)
		if !ok {
			gqlErr = gqlerror.Errorf("%s", err.Error())
		}
		errcode.Set(gqlErr, errcode.ParseFailed)
		return gqlErr
	}
	return checkDocument(doc, b.MaxNodes, b.MaxNesting)
}

// checkDocument refuses doc when its operations and fragment definitions
// hold more than maxNodes nodes once every spread is expanded, nest
// selections or values deeper than maxNesting, or spread a fragment within
// itself. It never expands a fragment: each is sized once.
func checkDocument(doc *ast.QueryDocument, maxNodes, maxNesting int) *gqlerror.Error {
	s := sizer{max: maxNodes, maxNesting: maxNesting, frags: make(map[string]*ast.FragmentDefinition, len(doc.Fragments)), size: map[string]int{}}
	for _, f := range doc.Fragments {
		if _, dup := s.frags[f.Name]; !dup {
			s.frags[f.Name] = f
		}
	}
	total := 0
	for _, o := range doc.Operations {
		for _, v := range o.VariableDefinitions {
			total = s.add(total, 1+s.value(v.DefaultValue, 1)+s.directives(v.Directives))
		}
		total = s.add(total, s.directives(o.Directives))
		total = s.add(total, s.set(o.SelectionSet, 1))
	}
	for _, f := range doc.Fragments {
		total = s.add(total, s.directives(f.Directives)+s.fragment(f.Name))
	}
	switch {
	case s.cycle != "":
		e := gqlerror.Errorf(`Cannot spread fragment "%s" within itself.`, s.cycle)
		errcode.Set(e, errcode.ValidationFailed)
		return e
	case s.tooDeep:
		return LimitError(CodeComplexity, fmt.Sprintf("the document nests selections or values more than %d levels deep", maxNesting),
			map[string]any{"maxNesting": maxNesting})
	case total > maxNodes:
		return LimitError(CodeComplexity, fmt.Sprintf("the document holds more than %d selections, directives and values (fragments count each time they are spread)", maxNodes),
			map[string]any{"maxNodes": maxNodes})
	}
	return nil
}

// sizer counts nodes, saturating just above max.
type sizer struct {
	max, maxNesting int
	frags           map[string]*ast.FragmentDefinition
	// size is each fragment's expanded size; -1 while it is being sized.
	size    map[string]int
	cycle   string
	tooDeep bool
}

func (s *sizer) add(a, b int) int { return min(a+b, s.max+1) }

// set sizes a selection set nested depth levels deep in its definition.
func (s *sizer) set(set ast.SelectionSet, depth int) int {
	if len(set) > 0 && depth > s.maxNesting {
		s.tooDeep = true
		return s.max + 1
	}
	n := 0
	for _, sel := range set {
		n = s.add(n, 1)
		switch x := sel.(type) {
		case *ast.Field:
			for _, a := range x.Arguments {
				n = s.add(n, s.value(a.Value, 1))
			}
			n = s.add(n, s.directives(x.Directives))
			n = s.add(n, s.set(x.SelectionSet, depth+1))
		case *ast.InlineFragment:
			n = s.add(n, s.directives(x.Directives))
			n = s.add(n, s.set(x.SelectionSet, depth+1))
		case *ast.FragmentSpread:
			n = s.add(n, s.directives(x.Directives))
			n = s.add(n, s.fragment(x.Name))
		}
		if n > s.max {
			break
		}
	}
	return n
}

func (s *sizer) directives(ds ast.DirectiveList) int {
	n := 0
	for _, d := range ds {
		n = s.add(n, 1)
		for _, a := range d.Arguments {
			n = s.add(n, s.value(a.Value, 1))
		}
		if n > s.max {
			break
		}
	}
	return n
}

// value sizes an argument value nested depth levels deep.
func (s *sizer) value(v *ast.Value, depth int) int {
	if v == nil {
		return 0
	}
	if depth > s.maxNesting {
		s.tooDeep = true
		return s.max + 1
	}
	n := 1
	for _, c := range v.Children {
		n = s.add(n, s.value(c.Value, depth+1))
		if n > s.max {
			break
		}
	}
	return n
}

func (s *sizer) fragment(name string) int {
	switch n, ok := s.size[name]; {
	case ok && n < 0:
		if s.cycle == "" {
			s.cycle = name
		}
		return s.max + 1 // refused either way
	case ok:
		return n
	}
	f := s.frags[name]
	if f == nil {
		return 0 // unknown: validation names it
	}
	s.size[name] = -1
	n := s.set(f.SelectionSet, 1)
	s.size[name] = n
	return n
}

const depositKey = "QueryCostDeposit"

// deposit takes what refusing a document of size bytes costs.
func (b DocumentBounds) deposit(ctx context.Context, size int) *gqlerror.Error {
	if b.Throttle == nil || !graphql.HasOperationContext(ctx) {
		return nil
	}
	// At most a tenth of the bucket: a client that spent most of it still
	// learns what its next query would cost.
	points := min(b.RefusalCost+b.RefusalCostPerKiB*((size+1023)/1024), max(1, b.Throttle.Budget()/10))
	status, allowed, wait, err := b.Throttle.Charge(ctx, points)
	if err != nil {
		return unavailable(ctx) // the store is unreachable: a budget never fails open
	}
	if !allowed {
		if o := OutcomeFrom(ctx); o != nil {
			o.Refuse(http.StatusTooManyRequests, wait)
		}
		return LimitError(CodeThrottled, fmt.Sprintf("reading a document costs %d points but only %d are available; retry in %d s", points, int(status.CurrentlyAvailable), wait),
			map[string]any{"cost": map[string]any{"throttleStatus": status}})
	}
	graphql.GetOperationContext(ctx).Stats.SetExtension(depositKey, points)
	return nil
}

// returnDeposit gives back the deposit of an operation that runs.
func returnDeposit(ctx context.Context, t *Throttle, op *graphql.OperationContext) {
	if n, ok := op.Stats.GetExtension(depositKey).(int); ok && n > 0 && t != nil {
		t.Refund(ctx, n)
		op.Stats.SetExtension(depositKey, 0)
	}
}
