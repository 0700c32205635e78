package operation

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"

	"github.com/haulgraph/haulgraph/domain"
)

// Query cost follows Shopify's model, with cost as work: what the server
// fetches separately is priced, what comes with its parent's row is not.
// Each object a root field, a list or a field marked @priced in the schema
// (a relation a dataloader loads) returns costs 1; scalars, enums and every
// other object (money, totals, a statement's driver) cost nothing of their
// own, only what they select below. A list multiplies its element cost by
// the number of elements it may return — first/pageSize for paged lists
// (20 when absent), the domain's bound for every unpaged list (listBounds:
// 100 stops, 20 trips, 50 documents, 24 statement lines, ...),
// nestedListSize for introspection's lists. A fragment is priced on its
// type condition, so the fields a union's or interface's fragments select
// are priced too. The requested cost is checked before execution; the
// actual cost counts, by the same rule, the objects really returned. Both,
// with the throttle bucket's state, are reported in extensions.cost.

const (
	// CodeComplexity refuses a document over a bound (depth, cost, size).
	CodeComplexity = "COMPLEXITY_LIMIT_EXCEEDED"
	// CodeThrottled refuses an operation the cost budget cannot pay.
	CodeThrottled  = string(domain.CodeRateLimited)
	nestedListSize = 5
	defaultFirst   = 20
	// costCeiling keeps sums and products of nested lists from overflowing
	// (any cost above it is refused all the same).
	costCeiling = 1 << 40
	// MaxAliases and MaxIntrospectionRoots bound what validation lets
	// through cheaply but execution pays dearly for: many aliases of one
	// expensive field (1,100 aliased __schema selections once ran a minute).
	MaxAliases            = 200
	MaxIntrospectionRoots = 5
)

// Cost defaults (HAULGRAPH_GRAPHQL_COST_LIMIT, _BUDGET, _REFILL). The
// dashboard query of settlement statements (100 per page, every field of
// the statement, its driver, totals, lines and sub-lines) is priced 9,701
// points: the budget holds two at once and, refilled at half its size a
// second, pays at least as many of them a minute, refund or not, as the
// budget of 40,000 and refill of 15,000 paid when it was priced 19,801.
const (
	DefaultCostLimit  = 20000
	DefaultCostBudget = 20000
	DefaultCostRefill = 7500
)

// Cost limits depth and cost and reports extensions.cost.
type Cost struct {
	MaxCost, MaxDepth int
	Throttle          *Throttle
	Log               *slog.Logger
	schema            *ast.Schema
}

// No graphql.FieldInterceptor: a hook on every field of every response cost
// more than the whole cost model; the actual cost is read once from the
// response (actualCost).
var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
	graphql.ResponseInterceptor
} = (*Cost)(nil)

func (c *Cost) ExtensionName() string { return "QueryCost" }

func (c *Cost) Validate(es graphql.ExecutableSchema) error {
	c.schema = es.Schema()
	return nil
}

type costState struct {
	walk      *walker // the operation's, read again for the actual cost
	requested int
	charged   bool // the requested cost was taken from the budget
	status    *ThrottleStatus
}

const statsKey = "QueryCost"

func (c *Cost) MutateOperationContext(ctx context.Context, op *graphql.OperationContext) *gqlerror.Error {
	o := op.Doc.Operations.ForName(op.OperationName)
	if o == nil {
		return nil
	}
	w := newWalker(op.Doc, op.Variables, c.schema)
	if err := w.shape(o.SelectionSet); err != nil {
		return err
	}
	if d := w.depth(o.SelectionSet, 0); d > c.MaxDepth {
		return LimitError(CodeComplexity, fmt.Sprintf("the query is %d levels deep; the limit is %d", d, c.MaxDepth),
			map[string]any{"depth": d, "maxDepth": c.MaxDepth})
	}
	cost := w.cost(o.SelectionSet, c.rootOf(o))
	if cost > c.MaxCost {
		return LimitError(CodeComplexity, fmt.Sprintf("the query costs %d; the limit is %d", cost, c.MaxCost),
			map[string]any{"requestedQueryCost": cost, "maxCost": c.MaxCost})
	}
	st := &costState{walk: w, requested: cost}
	op.Stats.SetExtension(statsKey, st)
	if c.Throttle != nil {
		returnDeposit(ctx, c.Throttle, op)
		status, allowed, wait, err := c.Throttle.Charge(ctx, cost)
		if err != nil {
			c.Log.ErrorContext(ctx, "graphql: cost budget unavailable", "err", err)
			return unavailable(ctx)
		}
		st.status, st.charged = &status, true
		if !allowed {
			st.charged = false
			if o := OutcomeFrom(ctx); o != nil {
				o.Refuse(http.StatusTooManyRequests, wait)
			}
			return LimitError(CodeThrottled, fmt.Sprintf("the query costs %d but only %d points are available; retry in %d s", cost, int(status.CurrentlyAvailable), wait),
				map[string]any{"cost": st.report(0)})
		}
	}
	return nil
}

// rootOf is the type o's selection set is read on.
func (c *Cost) rootOf(o *ast.OperationDefinition) *ast.Definition {
	switch o.Operation {
	case ast.Mutation:
		return c.schema.Mutation
	case ast.Subscription:
		return c.schema.Subscription
	}
	return c.schema.Query
}

// unavailable refuses an operation whose cost budget could not be read:
// a budget never fails open. Over HTTP it is a 503 with Retry-After.
func unavailable(ctx context.Context) *gqlerror.Error {
	if o := OutcomeFrom(ctx); o != nil {
		o.unavailable()
	}
	return LimitError(string(domain.CodeUnavailable), domain.ErrUnavailable.Message, nil)
}

// LimitError is a refusal before execution with code and extensions.
func LimitError(code, msg string, ext map[string]any) *gqlerror.Error {
	e := gqlerror.Errorf("%s", msg)
	e.Extensions = ext
	errcode.Set(e, code)
	return e
}

func (c *Cost) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	if graphql.HasOperationContext(ctx) {
		if op := graphql.GetOperationContext(ctx).Operation; op != nil && op.Operation == ast.Subscription {
			// A subscription is charged once, when it starts; each event is a
			// response of its own and must neither refund nor charge again.
			return next(ctx)
		}
	}
	resp := next(ctx)
	st := stateFrom(ctx)
	if resp == nil || st == nil {
		return resp
	}
	op := graphql.GetOperationContext(ctx)
	actual := actualCost(resp.Data, st.walk.returned(op.Operation.SelectionSet, c.rootOf(op.Operation)))
	if c.Throttle != nil && st.charged {
		refreshed := c.Throttle.Refund(ctx, st.requested-actual)
		st.status = &refreshed
	}
	if resp.Extensions == nil {
		resp.Extensions = map[string]any{}
	}
	resp.Extensions["cost"] = st.report(actual)
	return resp
}

func stateFrom(ctx context.Context) *costState {
	if !graphql.HasOperationContext(ctx) {
		return nil
	}
	st, _ := graphql.GetOperationContext(ctx).Stats.GetExtension(statsKey).(*costState)
	return st
}

func (s *costState) report(actual int) map[string]any {
	out := map[string]any{"requestedQueryCost": s.requested, "actualQueryCost": actual}
	if s.status != nil {
		out["throttleStatus"] = s.status
	}
	return out
}

// walker computes depth, cost and response keys of a selection set,
// following fragments. Each fragment's are computed once (per parent type
// for cost and keys) and remembered, so none expands a fragment spread many
// times.
type walker struct {
	doc    *ast.QueryDocument
	vars   map[string]any
	schema *ast.Schema
	depths map[fragmentAt]int
	costs  map[fragmentAt]int
	counts map[fragmentAt]shapeCount
	keys   map[fragmentAt]responseKeys
}

// fragmentAt is a fragment spread into a parent type (for shape: at the
// root or below it; for depth: anywhere).
type fragmentAt struct{ name, parent string }

// remember is memo[at], computed by size the first time: each fragment is
// walked once per place. A fragment that spreads itself (refused by
// validation) finds the zero value meanwhile.
func remember[T any](memo map[fragmentAt]T, at fragmentAt, size func() T) T {
	if v, ok := memo[at]; ok {
		return v
	}
	var zero T
	memo[at] = zero
	v := size()
	memo[at] = v
	return v
}

func newWalker(doc *ast.QueryDocument, vars map[string]any, schema *ast.Schema) *walker {
	return &walker{doc: doc, vars: vars, schema: schema, depths: map[fragmentAt]int{}, costs: map[fragmentAt]int{},
		counts: map[fragmentAt]shapeCount{}, keys: map[fragmentAt]responseKeys{}}
}

// shape refuses, before anything is priced or run, an operation with more
// than MaxAliases aliases in total or more than MaxIntrospectionRoots
// __schema/__type selections. A fragment counts each time it is spread.
func (w *walker) shape(set ast.SelectionSet) *gqlerror.Error {
	c := w.count(set, true)
	if c.roots > MaxIntrospectionRoots {
		return LimitError(CodeComplexity, fmt.Sprintf("the operation selects __schema or __type %d times; the limit is %d", c.roots, MaxIntrospectionRoots),
			map[string]any{"introspectionRoots": c.roots, "maxIntrospectionRoots": MaxIntrospectionRoots})
	}
	if c.aliases > MaxAliases {
		return LimitError(CodeComplexity, fmt.Sprintf("the operation uses more than %d aliases", MaxAliases),
			map[string]any{"maxAliases": MaxAliases})
	}
	return nil
}

// shapeCount is what shape counts: aliases at every level, introspection
// roots at the operation's own.
type shapeCount struct{ aliases, roots int }

func (a shapeCount) plus(b shapeCount) shapeCount {
	return shapeCount{min(a.aliases+b.aliases, costCeiling), min(a.roots+b.roots, costCeiling)}
}

// count counts set, each fragment once per level kind (remembered).
func (w *walker) count(set ast.SelectionSet, root bool) shapeCount {
	var c shapeCount
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if s.Alias != "" && s.Alias != s.Name {
				c.aliases++
			}
			if root && (s.Name == "__schema" || s.Name == "__type") {
				c.roots++
			}
			c = c.plus(w.count(s.SelectionSet, false))
		case *ast.InlineFragment:
			c = c.plus(w.count(s.SelectionSet, root))
		case *ast.FragmentSpread:
			if f := w.doc.Fragments.ForName(s.Name); f != nil {
				c = c.plus(remember(w.counts, fragmentAt{s.Name, strconv.FormatBool(root)}, func() shapeCount { return w.count(f.SelectionSet, root) }))
			}
		}
	}
	return c
}

func (w *walker) depth(set ast.SelectionSet, d int) int { return d + w.below(set) }

// below is how many levels of fields set holds.
func (w *walker) below(set ast.SelectionSet) int {
	deepest := 0
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			if !strings.HasPrefix(s.Name, "__") { // introspection is bounded by the schema
				deepest = max(deepest, 1+w.below(s.SelectionSet))
			}
		case *ast.InlineFragment:
			deepest = max(deepest, w.below(s.SelectionSet))
		case *ast.FragmentSpread:
			if f := w.doc.Fragments.ForName(s.Name); f != nil {
				deepest = max(deepest, remember(w.depths, fragmentAt{name: s.Name}, func() int { return w.below(f.SelectionSet) }))
			}
		}
	}
	return deepest
}

func (w *walker) cost(set ast.SelectionSet, parent *ast.Definition) int {
	if parent == nil {
		return 0
	}
	total := 0
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			total = min(total+w.fieldCost(s, parent), costCeiling)
		case *ast.InlineFragment:
			// Priced on its type condition: on a union or interface the
			// fields are the condition's (each fragment of a union added:
			// an upper bound of what any one member returns).
			total = min(total+w.cost(s.SelectionSet, w.on(s.TypeCondition, parent)), costCeiling)
		case *ast.FragmentSpread:
			if f := w.doc.Fragments.ForName(s.Name); f != nil {
				on := w.on(f.TypeCondition, parent)
				total = min(total+remember(w.costs, fragmentAt{s.Name, on.Name}, func() int { return w.cost(f.SelectionSet, on) }), costCeiling)
			}
		}
	}
	return total
}

// on is the type a fragment's fields are priced on: its condition, or the
// parent's when it has none.
func (w *walker) on(condition string, parent *ast.Definition) *ast.Definition {
	if d := w.schema.Types[condition]; d != nil {
		return d
	}
	return parent
}

func (w *walker) fieldCost(f *ast.Field, parent *ast.Definition) int {
	// Introspection (__schema, __type and below) is priced like any
	// field; __typename is a leaf and costs nothing.
	fd := parent.Fields.ForName(f.Name)
	if fd == nil {
		return 0
	}
	def := w.schema.Types[fd.Type.Name()]
	if def == nil || def.IsLeafType() {
		return 0
	}
	children := w.cost(f.SelectionSet, def)
	n, paged := w.listSize(f)
	switch list := fd.Type.Elem != nil; {
	case paged && !list:
		return 1 + min(n*children, costCeiling) // a connection: the page, its lists n times
	case paged:
		return min(n*(1+children), costCeiling)
	case list && strings.HasSuffix(parent.Name, "Connection"):
		return 1 + children // items/edges of a connection: already multiplied
	case list:
		return min(listBound(parent.Name+"."+fd.Name)*(1+children), costCeiling)
	case w.loadedApart(fd, parent):
		return 1 + children
	default:
		return children // fetched with its parent's row
	}
}

// priced reports whether each object field f returns costs 1: it is a
// root field, a list, a page or marked @priced (loaded apart from its
// parent's row).
func (w *walker) priced(f *ast.Field, fd *ast.FieldDefinition, parent *ast.Definition) bool {
	return paged(f) || fd.Type.Elem != nil || w.loadedApart(fd, parent)
}

// loadedApart reports whether the object field fd is fetched apart from
// its parent's row: a root field or one marked @priced.
func (w *walker) loadedApart(fd *ast.FieldDefinition, parent *ast.Definition) bool {
	return fd.Directives.ForName("priced") != nil ||
		parent == w.schema.Query || parent == w.schema.Mutation || parent == w.schema.Subscription
}

// paged reports whether f is a page: it is given a page size, or its
// definition takes one (listSize reads the size).
func paged(f *ast.Field) bool {
	return f.Arguments.ForName("first") != nil || f.Arguments.ForName("pageSize") != nil ||
		f.Definition != nil && f.Definition.Arguments.ForName("first") != nil
}

// listSize reads first/pageSize (literal or variable) of a paged field.
func (w *walker) listSize(f *ast.Field) (int, bool) {
	if !paged(f) {
		return 0, false
	}
	n := 0
	for _, name := range []string{"first", "pageSize"} {
		a := f.Arguments.ForName(name)
		if a == nil {
			continue
		}
		if v, err := a.Value.Value(w.vars); err == nil {
			switch x := v.(type) {
			case int64:
				n = max(n, int(x))
			case int:
				n = max(n, x)
			case interface{ Int64() (int64, error) }:
				if i, err := x.Int64(); err == nil {
					n = max(n, int(i))
				}
			}
		}
	}
	if n <= 0 {
		n = defaultFirst
	}
	return min(n, 100), true
}
