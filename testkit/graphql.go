package testkit

import (
	"encoding/json"
	"testing"
)

// GraphQLAnswer is a GraphQL response as tests read it.
type GraphQLAnswer struct {
	Data       map[string]json.RawMessage `json:"data"`
	Errors     []GraphQLError             `json:"errors"`
	Extensions map[string]json.RawMessage `json:"extensions"`
}

// GraphQLError is one entry of errors.
type GraphQLError struct {
	Message    string         `json:"message"`
	Path       []any          `json:"path"`
	Extensions map[string]any `json:"extensions"`
}

// Code is the extensions.code of error i ("" when there is none).
func (a GraphQLAnswer) Code(i int) string {
	if i >= len(a.Errors) {
		return ""
	}
	c, _ := a.Errors[i].Extensions["code"].(string)
	return c
}

// Field decodes data.<name> into v; a missing or undecodable field fails
// the test.
func (a GraphQLAnswer) Field(t testing.TB, name string, v any) {
	t.Helper()
	raw, ok := a.Data[name]
	if !ok {
		t.Fatalf("no data.%s in %+v", name, a)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("data.%s: %v", name, err)
	}
}

// IsNull reports whether data.<name> is null or absent.
func (a GraphQLAnswer) IsNull(name string) bool {
	raw, ok := a.Data[name]
	return !ok || string(raw) == "null"
}
