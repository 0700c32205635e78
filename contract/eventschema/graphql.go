package eventschema

import (
	"fmt"
	"sort"
	"strings"

	"github.com/vektah/gqlparser/v2/ast"

	"github.com/haulgraph/haulgraph/domain"
)

// GraphQLPrefix prefixes the definitions made from GraphQL types.
const GraphQLPrefix = "GraphQL"

// SubscriptionFields are the Subscription fields that stream events, by the
// event type each one carries.
var SubscriptionFields = map[string]string{
	"loadChanged":       domain.EventLoadChanged,
	"loadStatusChanged": domain.EventLoadStatusChanged,
	"tripChanged":       domain.EventTripChanged,
}

// scalars are the JSON shapes of the GraphQL scalars an event can carry.
var scalars = map[string]S{
	"String":   {"type": "string"},
	"ID":       {"type": "string"},
	"Int":      {"type": "integer", "format": "int32"},
	"Float":    {"type": "number", "format": "double"},
	"Boolean":  {"type": "boolean"},
	"Decimal":  {"type": "number", "format": "double", "description": "Exact decimal, rendered as a JSON number."},
	"DateTime": {"type": "string", "format": "date-time"},
	"Date":     {"type": "string", "format": "date"},
	"Map":      {"type": "object"},
}

// SubscriptionResultName is the definition of the GraphQL result that
// field's subscription streams.
func SubscriptionResultName(field string) string {
	return GraphQLPrefix + strings.ToUpper(field[:1]) + field[1:] + "Result"
}

// GraphQLDefinitions are the results of the event subscriptions (fields:
// field name → event type) and every output type they reach. A result holds
// only the fields its selection set asked for, so no property is required;
// the types, nullability and enums are exact. Fields appear under their
// schema names (an alias is not described).
func GraphQLDefinitions(schema *ast.Schema, fields map[string]string, ref Refs) (map[string]S, error) {
	g := &gqlDefs{schema: schema, ref: ref, defs: map[string]S{}}
	names := make([]string, 0, len(fields))
	for f := range fields {
		names = append(names, f)
	}
	sort.Strings(names)
	g.defs[GraphQLPrefix+"Error"] = S{"type": "object", "required": []any{"message"}, "properties": S{
		"message":    S{"type": "string"},
		"locations":  S{"type": "array", "items": S{"type": "object"}},
		"path":       S{"type": "array", "items": S{"type": []any{"string", "integer"}}},
		"extensions": S{"type": "object"},
	}}
	for _, name := range names {
		def := schema.Subscription.Fields.ForName(name)
		if def == nil {
			return nil, fmt.Errorf("Subscription has no field %s", name)
		}
		t, err := g.typeOf(def.Type)
		if err != nil {
			return nil, err
		}
		g.defs[SubscriptionResultName(name)] = S{
			"type":        "object",
			"description": fmt.Sprintf("A %s event as the %s subscription streams it: a GraphQL result holding the fields the subscription selected.", fields[name], name),
			"properties": S{
				"data": S{"anyOf": []any{
					S{"type": "object", "minProperties": 1, "maxProperties": 1, "additionalProperties": t,
						"description": "The subscription field, under its name or alias."},
					S{"type": "null"},
				}},
				"errors":     S{"type": "array", "items": S{"$ref": ref(GraphQLPrefix + "Error")}},
				"extensions": S{"type": "object"},
			},
			"additionalProperties": false,
		}
	}
	return g.defs, g.err
}

type gqlDefs struct {
	schema *ast.Schema
	ref    Refs
	defs   map[string]S
	err    error
}

func (g *gqlDefs) typeOf(t *ast.Type) (S, error) {
	var s S
	if t.Elem != nil {
		items, err := g.typeOf(t.Elem)
		if err != nil {
			return nil, err
		}
		s = S{"type": "array", "items": items}
		if !t.NonNull {
			s["type"] = []any{"array", "null"}
		}
		return s, nil
	}
	s, err := g.named(t.NamedType)
	if err != nil || t.NonNull {
		return s, err
	}
	if _, ok := s["$ref"]; ok || s["anyOf"] != nil {
		return S{"anyOf": []any{s, S{"type": "null"}}}, nil
	}
	return nullable(s), nil
}

func (g *gqlDefs) named(name string) (S, error) {
	def := g.schema.Types[name]
	if def == nil {
		return nil, fmt.Errorf("unknown GraphQL type %s", name)
	}
	switch def.Kind {
	case ast.Scalar:
		s, ok := scalars[name]
		if !ok {
			return nil, fmt.Errorf("scalar %s has no JSON shape in the event catalogue", name)
		}
		return clone(s), nil
	case ast.Enum:
		values := make([]any, len(def.EnumValues))
		for i, v := range def.EnumValues {
			values[i] = v.Name
		}
		return S{"type": "string", "enum": values}, nil
	case ast.Interface, ast.Union:
		var any_ []any
		for _, p := range g.schema.GetPossibleTypes(def) {
			s, err := g.named(p.Name)
			if err != nil {
				return nil, err
			}
			any_ = append(any_, s)
		}
		return S{"anyOf": any_}, nil
	case ast.Object:
		key := GraphQLPrefix + name
		if _, ok := g.defs[key]; !ok {
			props := S{"__typename": S{"type": "string", "const": name}}
			g.defs[key] = S{} // reserved: the type may refer to itself
			for _, f := range def.Fields {
				if strings.HasPrefix(f.Name, "__") {
					continue
				}
				t, err := g.typeOf(f.Type)
				if err != nil {
					return nil, err
				}
				props[f.Name] = t
			}
			g.defs[key] = S{"type": "object", "properties": props, "additionalProperties": false}
		}
		return S{"$ref": g.ref(key)}, nil
	}
	return nil, fmt.Errorf("GraphQL type %s (%s) is not an output type", name, def.Kind)
}

func clone(s S) S {
	out := S{}
	for k, v := range s {
		out[k] = v
	}
	return out
}
