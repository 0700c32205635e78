package operation

import (
	"unsafe"

	"github.com/vektah/gqlparser/v2/ast"
)

// What a parsed document holds in memory, counted from its AST: every node
// and value with the structs' own sizes, the Position each carries, its
// strings and the slices' backing arrays, plus the allocator's rounding
// (allocOverhead per object: size classes and headers). The text's length alone under-counts a
// document of many small values ~70 times (a list of 4,990 integers: 10 KB
// of text, some 1 MB parsed).
const allocOverhead = 32

var (
	sizeOperation = int(unsafe.Sizeof(ast.OperationDefinition{}))
	sizeFragment  = int(unsafe.Sizeof(ast.FragmentDefinition{}))
	sizeVariable  = int(unsafe.Sizeof(ast.VariableDefinition{}))
	sizeField     = int(unsafe.Sizeof(ast.Field{}))
	sizeInline    = int(unsafe.Sizeof(ast.InlineFragment{}))
	sizeSpread    = int(unsafe.Sizeof(ast.FragmentSpread{}))
	sizeArgument  = int(unsafe.Sizeof(ast.Argument{}))
	sizeDirective = int(unsafe.Sizeof(ast.Directive{}))
	sizeValue     = int(unsafe.Sizeof(ast.Value{}))
	sizeChild     = int(unsafe.Sizeof(ast.ChildValue{}))
	sizePosition  = int(unsafe.Sizeof(ast.Position{})) + allocOverhead
	sizeType      = int(unsafe.Sizeof(ast.Type{})) + allocOverhead
	sizePointer   = int(unsafe.Sizeof(uintptr(0)))
)

// documentBytes is doc's size in memory (its source text included).
func documentBytes(doc *ast.QueryDocument) int {
	if doc == nil {
		return 0
	}
	n := int(unsafe.Sizeof(*doc)) + allocOverhead
	for _, s := range doc.Operations {
		n += sizeOperation + allocOverhead + sizePointer + len(s.Name) + sizePosition
		n += directivesBytes(s.Directives) + selectionsBytes(s.SelectionSet)
		for _, v := range s.VariableDefinitions {
			n += sizeVariable + allocOverhead + sizePointer + len(v.Variable) + sizePosition + typeBytes(v.Type) +
				valueBytes(v.DefaultValue) + directivesBytes(v.Directives)
		}
	}
	for _, f := range doc.Fragments {
		n += sizeFragment + allocOverhead + sizePointer + len(f.Name) + len(f.TypeCondition) + sizePosition
		n += directivesBytes(f.Directives) + selectionsBytes(f.SelectionSet)
	}
	if pos := doc.Position; pos != nil && pos.Src != nil {
		n += len(pos.Src.Input) + len(pos.Src.Name)
	}
	return n
}

func selectionsBytes(set ast.SelectionSet) int {
	n := cap(set) * 2 * sizePointer // interface values
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			n += sizeField + allocOverhead + len(s.Alias) + len(s.Name) + sizePosition
			for _, a := range s.Arguments {
				n += sizeArgument + allocOverhead + sizePointer + len(a.Name) + sizePosition + valueBytes(a.Value)
			}
			n += directivesBytes(s.Directives) + selectionsBytes(s.SelectionSet)
		case *ast.InlineFragment:
			n += sizeInline + allocOverhead + len(s.TypeCondition) + sizePosition +
				directivesBytes(s.Directives) + selectionsBytes(s.SelectionSet)
		case *ast.FragmentSpread:
			n += sizeSpread + allocOverhead + len(s.Name) + sizePosition + directivesBytes(s.Directives)
		}
	}
	return n
}

func directivesBytes(ds ast.DirectiveList) int {
	n := cap(ds) * sizePointer
	for _, d := range ds {
		n += sizeDirective + allocOverhead + len(d.Name) + sizePosition
		for _, a := range d.Arguments {
			n += sizeArgument + allocOverhead + sizePointer + len(a.Name) + sizePosition + valueBytes(a.Value)
		}
	}
	return n
}

func valueBytes(v *ast.Value) int {
	if v == nil {
		return 0
	}
	n := sizeValue + allocOverhead + len(v.Raw) + sizePosition + cap(v.Children)*sizePointer
	for _, c := range v.Children {
		n += sizeChild + allocOverhead + len(c.Name) + sizePosition + valueBytes(c.Value)
	}
	return n
}

func typeBytes(t *ast.Type) int {
	if t == nil {
		return 0
	}
	return sizeType + len(t.NamedType) + sizePosition + typeBytes(t.Elem)
}
