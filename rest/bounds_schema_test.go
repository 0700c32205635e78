package rest_test

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// The test's own reading of JSON Schema 2020-12 (the keywords the
// document's request schemas use) and of the formats' standards: it judges
// a value valid or not from the served document alone, independently of the
// server's code, so that the property test compares the two.

// formatChecks are the standards' grammars, not the server's parsers.
var formatChecks = map[string]func(string) bool{
	// RFC 9562 section 4: hex digits of either case, hyphenated 8-4-4-4-12.
	"uuid": regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`).MatchString,
	// RFC 3339 section 5.6 (T and Z case-insensitive, any fraction).
	"date-time": func(s string) bool {
		m := regexp.MustCompile(`^([0-9]{4}-[0-9]{2}-[0-9]{2})[Tt]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?([Zz]|[+-][0-9]{2}:[0-9]{2})$`).FindStringSubmatch(s)
		if m == nil {
			return false
		}
		_, err := time.Parse(time.DateOnly, m[1])
		return err == nil && m[2] < "24" && m[3] < "60" && m[4] < "60"
	},
	// RFC 3339 full-date.
	"date": func(s string) bool {
		if !regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}$`).MatchString(s) {
			return false
		}
		_, err := time.Parse(time.DateOnly, s)
		return err == nil
	},
	// RFC 3986: a scheme, then only unreserved, reserved and % characters.
	"uri": regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.-]*:[A-Za-z0-9._~:/?#\[\]@!$&'()*+,;=%-]*$`).MatchString,
}

// schemaValid reports whether the JSON value v (as encoding/json decodes
// it, numbers float64) is valid against s, and if not, why.
func schemaValid(s *openapi3.Schema, v any) (bool, string) {
	if s == nil {
		return true, ""
	}
	for _, sub := range s.AllOf {
		if ok, why := schemaValid(sub.Value, v); !ok {
			return false, why
		}
	}
	if len(s.OneOf) > 0 {
		n := 0
		for _, sub := range s.OneOf {
			if ok, _ := schemaValid(sub.Value, v); ok {
				n++
			}
		}
		if n != 1 {
			return false, fmt.Sprintf("valid against %d of oneOf's %d schemas", n, len(s.OneOf))
		}
	}
	if len(s.AnyOf) > 0 && !slices.ContainsFunc(s.AnyOf, func(sub *openapi3.SchemaRef) bool { ok, _ := schemaValid(sub.Value, v); return ok }) {
		return false, "valid against none of anyOf"
	}
	if s.Not != nil {
		if ok, _ := schemaValid(s.Not.Value, v); ok {
			return false, "valid against not"
		}
	}
	if s.If != nil {
		branch, name := s.Else, "else"
		if ok, _ := schemaValid(s.If.Value, v); ok {
			branch, name = s.Then, "then"
		}
		if branch != nil {
			if ok, why := schemaValid(branch.Value, v); !ok {
				return false, name + ": " + why
			}
		}
	}
	if len(s.Enum) > 0 && !slices.ContainsFunc(s.Enum, func(e any) bool { return fmt.Sprint(e) == fmt.Sprint(v) && sameKind(e, v) }) {
		return false, "not in enum"
	}
	if s.Const != nil && fmt.Sprint(s.Const) != fmt.Sprint(v) {
		return false, "not the const"
	}
	if s.Type != nil && !s.Type.Is("") && !typeMatches(s.Type, v) {
		return false, "wrong type"
	}
	switch x := v.(type) {
	case string:
		n := utf8.RuneCountInString(x)
		if s.MaxLength != nil && uint64(n) > *s.MaxLength {
			return false, "longer than maxLength"
		}
		if uint64(n) < s.MinLength {
			return false, "shorter than minLength"
		}
		if s.Pattern != "" && !regexp.MustCompile(s.Pattern).MatchString(x) {
			return false, "does not match pattern"
		}
		if check, ok := formatChecks[s.Format]; ok && !check(x) {
			return false, "not a " + s.Format
		}
		if past, future, ok := within(s); ok {
			if t, _ := instant(x); t.Before(time.Now().Add(-past)) || t.After(time.Now().Add(future)) {
				return false, "outside x-within"
			}
		}
	case float64:
		if s.Min != nil && x < *s.Min {
			return false, "below minimum"
		}
		if s.Max != nil && x > *s.Max {
			return false, "above maximum"
		}
	case []any:
		if s.MaxItems != nil && uint64(len(x)) > *s.MaxItems {
			return false, "more than maxItems"
		}
		if uint64(len(x)) < s.MinItems {
			return false, "fewer than minItems"
		}
		for i, e := range x {
			if s.UniqueItems && slices.ContainsFunc(x[:i], func(p any) bool { return fmt.Sprint(p) == fmt.Sprint(e) }) {
				return false, "repeated item"
			}
			if s.Items != nil {
				if ok, why := schemaValid(s.Items.Value, e); !ok {
					return false, fmt.Sprintf("[%d] %s", i, why)
				}
			}
		}
	case map[string]any:
		for _, r := range s.Required {
			if _, ok := x[r]; !ok {
				return false, r + " is required"
			}
		}
		for k, deps := range s.DependentRequired {
			for _, d := range deps {
				if _, given := x[k]; given && x[d] == nil {
					return false, k + " requires " + d
				}
			}
		}
		if ok, why := notBeforeValid(s.Properties, x); !ok {
			return false, why
		}
		for k, e := range x {
			p, ok := s.Properties[k]
			if !ok {
				if s.AdditionalProperties.Has != nil && !*s.AdditionalProperties.Has {
					return false, k + " is not a property"
				}
				continue
			}
			if ok, why := schemaValid(p.Value, e); !ok {
				return false, k + ": " + why
			}
		}
	}
	return true, ""
}

// notBeforeValid applies the document's x-not-before: a member (or query
// parameter) whose schema names a sibling is not earlier than it, when
// both are given and each is a date or date-time.
func notBeforeValid(props openapi3.Schemas, x map[string]any) (bool, string) {
	for name, p := range props {
		other, _ := p.Value.Extensions["x-not-before"].(string)
		if other == "" {
			continue
		}
		a, okA := instant(x[name])
		b, okB := instant(x[other])
		if okA && okB && a.Before(b) {
			return false, name + " is before " + other
		}
	}
	return true, ""
}

// within reads the document's x-within: how long before and after the
// request's time a date-time may be (ISO 8601 durations of days or
// seconds, all the document uses).
func within(s *openapi3.Schema) (past, future time.Duration, ok bool) {
	w, ok := s.Extensions["x-within"].(map[string]any)
	if !ok {
		return 0, 0, false
	}
	duration := func(v any) time.Duration {
		m := regexp.MustCompile(`^P(?:([0-9]+)D)?(?:T([0-9]+)S)?$`).FindStringSubmatch(fmt.Sprint(v))
		if m == nil {
			panic(fmt.Sprintf("x-within: %v is not a duration this test reads", v))
		}
		d, _ := strconv.Atoi(m[1])
		sec, _ := strconv.Atoi(m[2])
		return time.Duration(d)*24*time.Hour + time.Duration(sec)*time.Second
	}
	return duration(w["past"]), duration(w["future"]), true
}

// instant reads a date or an RFC 3339 date-time.
func instant(v any) (time.Time, bool) {
	s, _ := v.(string)
	for _, layout := range []string{time.DateOnly, time.RFC3339Nano} {
		if t, err := time.Parse(layout, strings.ToUpper(s)); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func sameKind(a, b any) bool { return fmt.Sprintf("%T", a) == fmt.Sprintf("%T", b) }

func typeMatches(t *openapi3.Types, v any) bool {
	switch x := v.(type) {
	case nil:
		return t.Includes("null")
	case string:
		return t.Includes(openapi3.TypeString)
	case bool:
		return t.Includes(openapi3.TypeBoolean)
	case float64:
		return t.Includes(openapi3.TypeNumber) || t.Includes(openapi3.TypeInteger) && x == math.Trunc(x)
	case []any:
		return t.Includes(openapi3.TypeArray)
	case map[string]any:
		return t.Includes(openapi3.TypeObject)
	}
	return false
}

// textValid judges a query or path value as the document's description
// spells scalars in text: an integer as decimal digits with an optional
// minus, a boolean as true or false, a list as separate values.
func textValid(s *openapi3.Schema, values []string) (bool, string) {
	if s.Type.Includes(openapi3.TypeArray) {
		items := make([]any, len(values))
		for i, x := range values {
			items[i] = x
		}
		return schemaValid(s, items)
	}
	if len(values) != 1 {
		return false, "given more than once"
	}
	x := values[0]
	switch {
	case s.Type.Includes(openapi3.TypeInteger):
		if !regexp.MustCompile(`^-?[0-9]+$`).MatchString(x) {
			return false, "not an integer in decimal digits"
		}
		var f float64
		if _, err := fmt.Sscan(x, &f); err != nil {
			return false, "not a number"
		}
		return schemaValid(s, f)
	case s.Type.Includes(openapi3.TypeBoolean):
		return x == "true" || x == "false", "not true or false"
	}
	return schemaValid(s, x)
}

// stringsAtMost is a value of n characters that take several bytes each.
func stringsAtMost(n int, r rune) string { return strings.Repeat(string(r), n) }
