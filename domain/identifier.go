package domain

import (
	"strings"
	"unicode"
)

// Identifier rule: a load or trip number travels in URL paths
// (/loads/{loadNumber}), where proxies decode %2F and %5C, fold
// backslashes, resolve dot segments and trim, and so send the request
// elsewhere or refuse it. A new number is therefore refused, never
// trimmed, when it holds "/" or "\", is the dot segment "." or "..", holds
// a control character (tab and line breaks included), or starts or ends
// with a space. Lookups stay exact and admit more (ValidLoadNumber):
// rows other writers stored before the rule stay readable.

// IdentifierPattern states the identifier rule as a regular expression that
// ECMA-262 (JSON Schema's dialect) and RE2 read alike (so no look-around,
// which RE2 lacks): one character that is not a dot, two that are not both
// dots, or more; the edges neither a space nor a no-break space.
const IdentifierPattern = `^(?:` + idNoDot + `|` + idNoDot + idEdge + `|` + idEdge + idNoDot + `|` + idEdge + idInner + `+` + idEdge + `)$`

const (
	idInner = `[^\x00-\x1F\x7F-\x9F/\\]`
	idEdge  = `[^\x00-\x20\x7F-\xA0/\\]`
	idNoDot = `[^.\x00-\x20\x7F-\xA0/\\]`
)

// CheckIdentifier returns why s breaks the identifier rule (a message
// continuing the field's name), or "" when s is a valid new identifier.
func CheckIdentifier(s string) string {
	switch {
	case s == "" || Length(s) > MaxLoadNumber:
		return loadNumberBounds
	case strings.ContainsAny(s, `/\`):
		return `must not contain "/" or "\": it is a URL path segment`
	case s == "." || s == "..":
		return `must not be "." or "..": it is a URL path segment`
	case strings.ContainsFunc(s, unicode.IsControl):
		return "must not contain control characters"
	case s != strings.Trim(s, " \u00A0"):
		return "must not start or end with a space (nothing is trimmed)"
	}
	if err := CheckText(s); err != nil { // invalid UTF-8
		return err.Error()
	}
	return ""
}

// IdentifierField records in v, under field, a new identifier breaking the
// rule, the message starting with name; false when it does.
func (v *Validation) IdentifierField(field, name, s string) bool {
	if why := CheckIdentifier(s); why != "" {
		v.Add(field, name+" "+why)
		return false
	}
	return true
}
