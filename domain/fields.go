package domain

import (
	"strconv"
	"strings"

	"github.com/google/uuid"
)

// MaxLoadNumber bounds a load or trip number, wherever one is given (a new
// load, a search, an event filter).
const MaxLoadNumber = 64

// LoadNumberRule is the message of a load or trip number out of bounds.
func LoadNumberRule(field string) string {
	return field + " must be 1 to " + strconv.Itoa(MaxLoadNumber) + " characters"
}

// ValidLoadNumber is s trimmed, or the error of a load number out of bounds.
func ValidLoadNumber(s string) (string, error) {
	n := strings.TrimSpace(s)
	if n == "" || Length(s) > MaxLoadNumber {
		return "", &Error{Code: CodeInvalid, Message: "invalid load number",
			Fields: map[string][]string{"loadNumber": {LoadNumberRule("loadNumber")}}}
	}
	return n, nil
}

// UUIDField parses an id field in its canonical form (ParseUUID); "" is
// absent (an error when required).
func UUIDField(v *Validation, field, s string, required bool) *uuid.UUID {
	if s == "" {
		if required {
			v.Add(field, field+" is required")
		}
		return nil
	}
	id, err := ParseUUID(s)
	if err != nil {
		v.Add(field, field+" "+err.Error())
		return nil
	}
	return &id
}
