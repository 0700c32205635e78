package operation

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// HideSchema wraps an error presenter for a server without introspection:
// a validation error that could name the schema (a required argument and
// its type, the type a field or value was expected on, an input type's
// fields, an enum's name) gets one generic message per rule, and a
// variable's coercion error says only which variable was refused. Position
// and code stay; rules whose messages only repeat the document's own names
// (unique names, unused or undefined variables and fragments) keep theirs.
func HideSchema(next graphql.ErrorPresenterFunc) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		e := next(ctx, err)
		if e.Extensions["code"] != "GRAPHQL_VALIDATION_FAILED" {
			return e
		}
		rule := strings.TrimSuffix(e.Rule, "WithoutSuggestions")
		switch {
		case rule != "":
			if msg, ok := genericMessages[rule]; ok {
				e.Message = msg
			}
		case len(e.Path) >= 2 && e.Path[0] == ast.PathName("variable"):
			// gqlparser's path names the input fields it walked, the
			// missing required one included: keep the variable only.
			name, _ := e.Path[1].(ast.PathName)
			e.Message = "variable $" + string(name) + " is not valid for its declaration"
			e.Path = nil
		}
		return e
	}
}

// genericMessages are the messages of the rules that may name the schema
// (the words avoid the schema's own names, "type" and "input" among them);
// the other rules only repeat the document's names.
var genericMessages = map[string]string{
	"FieldsOnCorrectType":          "cannot query this field here",
	"KnownArgumentNames":           "unknown argument",
	"ProvidedRequiredArguments":    "a required argument is missing",
	"ScalarLeafs":                  "this field's selection of subfields is missing or not allowed",
	"ValuesOfCorrectType":          "this literal is not valid here",
	"VariablesInAllowedPosition":   "this variable cannot be used here",
	"PossibleFragmentSpreads":      "this fragment cannot be spread here",
	"OverlappingFieldsCanBeMerged": "fields under one alias conflict",
}
