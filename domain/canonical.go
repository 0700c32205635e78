package domain

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Canonical forms: every transport reads a scalar a client spells as text
// (a query parameter, a path segment, a JSON string) by these rules only,
// as Stripe and GitHub do. One spelling per value keeps a proxy, a cache key
// and the server from reading one request two ways, and lets the OpenAPI
// document state the rule exactly.
//
//   - a UUID is 36 characters, hyphenated 8-4-4-4-12, hex digits of either
//     case (no braces, no urn:uuid:, no 32-digit form);
//   - a boolean is true or false, in lower case;
//   - an integer in text is decimal digits with an optional leading '-'
//     (no '+', no spaces, no fraction, no exponent);
//   - an enum value is spelt exactly as listed;
//   - a length is counted in characters (Unicode code points), not bytes.

// UUIDLength is the length of a canonical UUID.
const UUIDLength = 36

// UUIDPattern is the canonical UUID's shape (the OpenAPI document's pattern).
const UUIDPattern = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"

// IntegerPattern is the shape of an integer written as text.
const IntegerPattern = "^-?[0-9]+$"

// ParseUUID reads a canonical UUID.
func ParseUUID(s string) (uuid.UUID, error) {
	if len(s) != UUIDLength || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return uuid.UUID{}, fmt.Errorf("must be a UUID written 8-4-4-4-12 (36 characters), such as 3fa85f64-5717-4562-b3fc-2c963f66afa6")
	}
	id, err := uuid.Parse(s)
	if err != nil {
		return uuid.UUID{}, fmt.Errorf("must be a UUID written 8-4-4-4-12 (36 characters), such as 3fa85f64-5717-4562-b3fc-2c963f66afa6")
	}
	return id, nil
}

// ParseBool reads true or false.
func ParseBool(s string) (bool, error) {
	switch s {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, fmt.Errorf("must be true or false")
}

// ParseInt reads an integer written as text within [lo, hi].
func ParseInt(s string, lo, hi int64) (int64, error) {
	ok := s != ""
	for i, c := range s {
		if !(c >= '0' && c <= '9' || c == '-' && i == 0 && len(s) > 1) {
			ok = false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if !ok || err != nil || n < lo || n > hi {
		return 0, fmt.Errorf("must be an integer between %d and %d, written in decimal digits", lo, hi)
	}
	return n, nil
}

// IntegralNumber reads a JSON number that must hold an integer within
// [lo, hi]. As JSON Schema's type integer, 10.0 and 1e1 are the integer 10.
func IntegralNumber(literal string, lo, hi int64) (int64, error) {
	if n, err := strconv.ParseInt(literal, 10, 64); err == nil {
		if n < lo || n > hi {
			return 0, fmt.Errorf("must be an integer between %d and %d", lo, hi)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(literal, 64)
	if err != nil || f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, fmt.Errorf("must be an integer between %d and %d", lo, hi)
	}
	return int64(f), nil
}

// ParseEnum reads one of values, spelt exactly.
func ParseEnum[T ~string](s string, values []T) (T, error) {
	if slices.Contains(values, T(s)) {
		return T(s), nil
	}
	names := make([]string, len(values))
	for i, v := range values {
		names[i] = string(v)
	}
	return "", fmt.Errorf("must be one of %s (exactly as written)", strings.Join(names, ", "))
}

// Length is the length of s as every bound counts it: in characters.
func Length(s string) int { return utf8.RuneCountInString(s) }

// CheckLength records in v a string longer than max characters.
func (v *Validation) CheckLength(field, s string, max int) bool {
	if Length(s) > max {
		v.Add(field, fmt.Sprintf("%s must be at most %d characters", field, max))
		return false
	}
	return true
}
