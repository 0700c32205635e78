package rest

import (
	"bytes"
	"encoding/json"
	"math"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/jsonkey"
)

// fields is the one conversion of REST input into domain values: query
// parameters, path segments and JSON body fields all pass through it, so a
// uuid, an integer, a boolean or a date-time is read by domain's canonical
// rule (domain/canonical.go) whichever part of the request carries it.
// Refusals are collected under the name the client sent.
type fields struct{ v domain.Validation }

// Err is every refusal collected, nil when none.
func (f *fields) Err() error { return f.v.Err() }

// Int reads an integer written as text (a query parameter, a path segment)
// within int32's range; domain checks the operation's own bounds.
func (f *fields) Int(name string, s *string) *int {
	if s == nil {
		return nil
	}
	n, err := domain.ParseInt(*s, math.MinInt32, math.MaxInt32)
	if err != nil {
		f.v.Add(name, name+" "+err.Error())
		return nil
	}
	i := int(n)
	return &i
}

// Number reads a JSON number that must be an integer within int32's range.
func (f *fields) Number(name string, n *number) *int {
	if n == nil {
		return nil
	}
	v, err := domain.IntegralNumber(string(*n), math.MinInt32, math.MaxInt32)
	if err != nil {
		f.v.Add(name, name+" "+err.Error())
		return nil
	}
	i := int(v)
	return &i
}

// Bool reads true or false (absent: false).
func (f *fields) Bool(name string, s *string) bool {
	if s == nil {
		return false
	}
	b, err := domain.ParseBool(*s)
	if err != nil {
		f.v.Add(name, name+" "+err.Error())
	}
	return b
}

// UUID reads a canonical UUID.
func (f *fields) UUID(name string, s *string) *uuid.UUID {
	if s == nil {
		return nil
	}
	id, err := domain.ParseUUID(*s)
	if err != nil {
		f.v.Add(name, name+" "+err.Error())
		return nil
	}
	return &id
}

// DateTime reads an RFC 3339 date-time.
func (f *fields) DateTime(name string, s *string) *time.Time {
	if s == nil {
		return nil
	}
	t, err := domain.ParseDateTime(*s)
	if err != nil {
		f.v.Add(name, name+" "+err.Error())
		return nil
	}
	return &t
}

// pathUUID reads a uuid path segment: malformed, it is a 400 naming the
// segment, as the document's format: uuid says.
func pathUUID(r *http.Request, name string) (uuid.UUID, error) {
	var f fields
	s := r.PathValue(name)
	id := f.UUID(name, &s)
	if id == nil {
		return uuid.UUID{}, f.Err()
	}
	return *id, nil
}

// number is a JSON number kept as written, so that its integral value is
// judged by domain (10.0 is the integer 10, as JSON Schema reads it) and a
// string holding digits is refused, as encoding/json's json.Number would not.
type number string

func (n *number) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || (b[0] != '-' && (b[0] < '0' || b[0] > '9')) {
		return &json.UnmarshalTypeError{Value: jsonTokenKind(b), Type: reflect.TypeFor[int]()}
	}
	*n = number(b)
	return nil
}

func jsonTokenKind(b []byte) string {
	switch {
	case len(b) == 0:
		return "nothing"
	case b[0] == '"':
		return "string"
	case b[0] == '{':
		return "object"
	case b[0] == '[':
		return "array"
	case bytes.Equal(b, []byte("true")), bytes.Equal(b, []byte("false")):
		return "bool"
	}
	return "value"
}

// refuseNulls names every member of body that is JSON null where dst's
// field does not say `nullable:"true"`: the document marks those fields
// non-nullable, and "absent" is spelt by leaving the member out.
// Members match fields case-insensitively, as decodeJSON matches them.
func refuseNulls(v *domain.Validation, body []byte, dst reflect.Type) {
	var doc any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if dec.Decode(&doc) != nil {
		return // decodeJSON has refused it already
	}
	walkNulls(v, doc, dst, "")
}

func walkNulls(v *domain.Validation, val any, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	obj, ok := val.(map[string]any)
	if !ok || t.Kind() != reflect.Struct {
		return
	}
	for key, member := range obj {
		f, ok := fieldByJSONName(t, key)
		if !ok {
			continue
		}
		name := jsonName(f)
		if path != "" {
			name = path + "." + name
		}
		if member == nil {
			if f.Tag.Get("nullable") != "true" {
				v.Add(name, name+" must not be null: leave it out instead")
			}
			continue
		}
		walkNulls(v, member, f.Type, name)
	}
}

func fieldByJSONName(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous {
			if sf, ok := fieldByJSONName(f.Type, key); ok {
				return sf, true
			}
			continue
		}
		if jsonkey.Fold(jsonName(f)) == jsonkey.Fold(key) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		name = f.Name
	}
	return name
}
