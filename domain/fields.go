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
func LoadNumberRule(field string) string { return field + " " + loadNumberBounds }

// loadNumberBounds continues a number's name: LoadNumberRule and
// CheckIdentifier's message.
var loadNumberBounds = "must be 1 to " + strconv.Itoa(MaxLoadNumber) + " characters"

// ValidLoadNumber is s, exactly as given (a lookup trims nothing, so a
// number another writer stored before the identifier rule is found as
// stored), or the error of a number no load can hold: blank or too long.
func ValidLoadNumber(s string) (string, error) {
	if strings.TrimSpace(s) == "" || Length(s) > MaxLoadNumber {
		return "", &Error{Code: CodeInvalid, Message: "invalid load number",
			Fields: map[string][]string{"loadNumber": {LoadNumberRule("loadNumber")}}}
	}
	return s, nil
}

// CheckLoadNumber records in v, under field, a load number no lookup takes
// (ValidLoadNumber's rule, what naming the number in the message): a filter
// matches loads as a lookup finds them, exactly as stored.
func (v *Validation) CheckLoadNumber(field, what, s string) bool {
	if _, err := ValidLoadNumber(s); err != nil {
		v.Add(field, LoadNumberRule(what))
		return false
	}
	return true
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
