package operation

import (
	"bytes"
	"fmt"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/validator/core"
	"github.com/vektah/gqlparser/v2/validator/rules"
)

// Validation is gqlparser's rule set with three changes:
//   - at most maxErrors errors are collected (the last says there were more);
//   - OverlappingFieldsCanBeMerged, which compares every pair of fields of
//     one response name (n²/2 comparisons and errors for n fields answering
//     to one alias), is replaced by mergeableFields: fields grouped by
//     response name, each group compared once, within a work budget;
//   - without introspection, no rule suggests names ("Did you mean …"), and
//     __schema/__type are refused under any alias (noIntrospection).
//
// The rule names of the suggestion-free variants are gqlgen's, so that its
// own swap of two of them (SetDisableSuggestion) leaves these in place.
func ValidationRules(maxErrors, maxWork int, introspection bool) func() *rules.Rules {
	base := []core.Rule{
		rules.FragmentsOnCompositeTypesRule, rules.KnownDirectivesRule, rules.KnownFragmentNamesRule,
		rules.KnownRootTypeRule, rules.LoneAnonymousOperationRule, rules.MaxIntrospectionDepth,
		rules.NoFragmentCyclesRule, rules.NoUndefinedVariablesRule, rules.NoUnusedFragmentsRule,
		rules.NoUnusedVariablesRule, rules.PossibleFragmentSpreadsRule, rules.ProvidedRequiredArgumentsRule,
		rules.SingleFieldSubscriptionsRule, rules.UniqueArgumentNamesRule, rules.UniqueDirectivesPerLocationRule,
		rules.UniqueFragmentNamesRule, rules.UniqueInputFieldNamesRule, rules.UniqueOperationNamesRule,
		rules.UniqueVariableNamesRule, rules.VariablesAreInputTypesRule, rules.VariablesInAllowedPositionRule,
		{Name: rules.OverlappingFieldsCanBeMergedRule.Name, RuleFunc: mergeableFields(maxWork)},
	}
	if introspection {
		base = append(base, rules.FieldsOnCorrectTypeRule, rules.KnownArgumentNamesRule, rules.KnownTypeNamesRule,
			rules.ScalarLeafsRule, rules.ValuesOfCorrectTypeRule)
	} else {
		base = append(base, rules.FieldsOnCorrectTypeRuleWithoutSuggestions, rules.KnownArgumentNamesRuleWithoutSuggestions,
			rules.KnownTypeNamesRuleWithoutSuggestions, rules.ScalarLeafsRuleWithoutSuggestions,
			rules.ValuesOfCorrectTypeRuleWithoutSuggestions, noIntrospection)
	}
	return func() *rules.Rules {
		// One count per validation: gqlgen asks for the rules each time.
		n := 0
		capped := func(add core.AddErrFunc) core.AddErrFunc {
			return func(options ...core.ErrorOption) {
				switch {
				case n < maxErrors-1:
					add(options...)
				case n == maxErrors-1:
					add(core.Message("there are more than %d errors: the rest are not reported", maxErrors-1))
				}
				n++
			}
		}
		r := rules.NewRules()
		for _, rule := range base {
			r.AddRule(rule.Name, func(ev *core.Events, add core.AddErrFunc) { rule.RuleFunc(ev, capped(add)) })
		}
		return r
	}
}

const noIntrospectionRule = "NoIntrospection"

// noIntrospection refuses __schema and __type wherever they are selected,
// aliased or not, when introspection is off.
var noIntrospection = core.Rule{Name: noIntrospectionRule, RuleFunc: func(ev *core.Events, add core.AddErrFunc) {
	ev.OnField(func(_ *core.Walker, f *ast.Field) {
		if f.Name == "__schema" || f.Name == "__type" {
			add(core.Message("introspection is disabled on this server"), core.At(f.Position))
		}
	})
}}

// mergeableFields is the spec's FieldsInSetCanMerge computed as
// XING's "faster overlapping fields validation" does: the fields of a
// selection set (fragments and inline fragments merged in) are grouped by
// response name; within a group every field is compared with one other, not
// with all, and the group's sub-selections are merged and checked as one
// set. Each field is visited a bounded number of times; past maxWork visits
// the operation is refused as too complex. One conflict is reported per
// response name.
func mergeableFields(maxWork int) core.RuleFunc {
	return func(ev *core.Events, add core.AddErrFunc) {
		ev.OnOperation(func(w *core.Walker, op *ast.OperationDefinition) {
			m := &merger{walker: w, add: add, budget: maxWork}
			set := m.collect([]ast.SelectionSet{op.SelectionSet})
			m.shapes(set, nil)
			m.common(set, nil)
		})
	}
}

type merger struct {
	walker   *core.Walker
	add      core.AddErrFunc
	budget   int
	exceeded bool
	reported map[*ast.Field]bool
}

// group is the fields of one response name, in document order.
type group struct {
	name   string
	fields []*ast.Field
}

// collect merges selection sets into groups by response name, each
// fragment once per merged set (spreading it again adds the same fields).
func (m *merger) collect(sets []ast.SelectionSet) []*group {
	var out []*group
	index := map[string]*group{}
	seen := map[string]bool{}
	var walk func(ast.SelectionSet)
	walk = func(set ast.SelectionSet) {
		for _, sel := range set {
			if !m.spend() {
				return
			}
			switch x := sel.(type) {
			case *ast.Field:
				name := x.Alias
				if name == "" {
					name = x.Name
				}
				g := index[name]
				if g == nil {
					g = &group{name: name}
					index[name] = g
					out = append(out, g)
				}
				g.fields = append(g.fields, x)
			case *ast.InlineFragment:
				walk(x.SelectionSet)
			case *ast.FragmentSpread:
				if seen[x.Name] {
					continue
				}
				seen[x.Name] = true
				if def := m.walker.Document.Fragments.ForName(x.Name); def != nil {
					walk(def.SelectionSet)
				}
			}
		}
	}
	for _, s := range sets {
		walk(s)
	}
	return out
}

// spend takes one unit of work, refusing the operation once past budget.
func (m *merger) spend() bool {
	if m.exceeded {
		return false
	}
	m.budget--
	if m.budget < 0 {
		m.exceeded = true
		m.add(core.Message("the operation's fields are too many to check for conflicts: use fewer fields of the same name"))
		return false
	}
	return true
}

// shapes: fields of one response name must answer values of one shape
// (SameResponseShape), whatever their parent types.
func (m *merger) shapes(set []*group, path []string) {
	for _, g := range set {
		if m.exceeded {
			return
		}
		first := g.fields[0]
		conflict := false
		for _, f := range g.fields[1:] {
			if !m.spend() {
				return
			}
			if first.Definition != nil && f.Definition != nil && typesConflict(m.walker.Schema, first.Definition.Type, f.Definition.Type) {
				m.report(append(path, g.name), f, fmt.Sprintf(`they return conflicting types "%s" and "%s"`, first.Definition.Type.String(), f.Definition.Type.String()))
				conflict = true
				break
			}
		}
		if !conflict && hasSelections(g.fields) {
			m.shapes(m.collect(selectionSets(g.fields)), append(path, g.name))
		}
	}
}

// common: fields of one response name whose parents may be the same object
// (the same object type, or an interface or union) must be the same field
// with the same arguments (SameForCommonParents).
func (m *merger) common(set []*group, path []string) {
	for _, g := range set {
		if m.exceeded {
			return
		}
		var abstract []*ast.Field
		byParent := map[string][]*ast.Field{}
		var parents []string
		for _, f := range g.fields {
			switch {
			case f.ObjectDefinition == nil || f.Definition == nil:
				// Unknown: another rule reports it.
			case f.ObjectDefinition.Kind != ast.Object:
				abstract = append(abstract, f)
			default:
				p := f.ObjectDefinition.Name
				if byParent[p] == nil {
					parents = append(parents, p)
				}
				byParent[p] = append(byParent[p], f)
			}
		}
		var parts [][]*ast.Field
		for _, p := range parents {
			parts = append(parts, append(byParent[p][:len(byParent[p]):len(byParent[p])], abstract...))
		}
		if len(parts) == 0 && len(abstract) > 0 {
			parts = append(parts, abstract)
		}
		for _, part := range parts {
			if m.sameField(part, append(path, g.name)) && hasSelections(part) {
				m.common(m.collect(selectionSets(part)), append(path, g.name))
			}
			if m.exceeded {
				return
			}
		}
	}
}

// sameField reports the first field of fs that is not the first's field
// with its arguments.
func (m *merger) sameField(fs []*ast.Field, path []string) bool {
	first := fs[0]
	for _, f := range fs[1:] {
		if !m.spend() {
			return false
		}
		switch {
		case f.Name != first.Name:
			m.report(path, f, fmt.Sprintf(`"%s" and "%s" are different fields`, first.Name, f.Name))
			return false
		case !sameArguments(first.Arguments, f.Arguments):
			m.report(path, f, "they have differing arguments")
			return false
		}
	}
	return true
}

// report adds one conflict, in gqlparser's words, once per field.
func (m *merger) report(path []string, at *ast.Field, reason string) {
	if m.reported == nil {
		m.reported = map[*ast.Field]bool{}
	}
	if m.reported[at] {
		return
	}
	m.reported[at] = true
	var b bytes.Buffer
	fmt.Fprintf(&b, `Fields "%s" conflict because `, path[0])
	for _, p := range path[1:] {
		fmt.Fprintf(&b, `subfields "%s" conflict because `, p)
	}
	b.WriteString(reason)
	b.WriteString(". Use different aliases on the fields to fetch both if this was intentional.")
	m.add(core.Message("%s", b.String()), core.At(at.Position))
}

func hasSelections(fs []*ast.Field) bool {
	for _, f := range fs {
		if len(f.SelectionSet) > 0 {
			return true
		}
	}
	return false
}

func selectionSets(fs []*ast.Field) []ast.SelectionSet {
	out := make([]ast.SelectionSet, 0, len(fs))
	for _, f := range fs {
		out = append(out, f.SelectionSet)
	}
	return out
}

func sameArguments(a, b ast.ArgumentList) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		y := b.ForName(x.Name)
		if y == nil || !sameValue(x.Value, y.Value) {
			return false
		}
	}
	return true
}

// sameValue compares two argument values as written (gqlparser's rule
// compares kind and raw text; lists and objects by their children).
func sameValue(a, b *ast.Value) bool {
	if a.Kind != b.Kind || a.Raw != b.Raw || len(a.Children) != len(b.Children) {
		return false
	}
	for i := range a.Children {
		if a.Children[i].Name != b.Children[i].Name || !sameValue(a.Children[i].Value, b.Children[i].Value) {
			return false
		}
	}
	return true
}

// typesConflict is SameResponseShape's test of two field types.
func typesConflict(s *ast.Schema, a, b *ast.Type) bool {
	for a.Elem != nil || b.Elem != nil {
		if a.Elem == nil || b.Elem == nil || a.NonNull != b.NonNull {
			return true
		}
		a, b = a.Elem, b.Elem
	}
	if a.NonNull != b.NonNull {
		return true
	}
	ta, tb := s.Types[a.NamedType], s.Types[b.NamedType]
	if ta == nil || tb == nil {
		return false
	}
	if ta.IsLeafType() || tb.IsLeafType() {
		return ta.Name != tb.Name
	}
	return false
}
