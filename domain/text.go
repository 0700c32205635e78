package domain

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// Text rule: every string a client sends is valid UTF-8 without
// control characters, except tab, line feed and carriage return (text with
// line breaks is legitimate in notes and names pasted from other systems).
// A NUL byte in particular can never reach SQL: PostgreSQL's text types
// refuse it. Both transports apply the rule while decoding (REST bodies,
// query parameters and path segments; GraphQL String and ID), so the answer
// is 400 problem+json naming the field or BAD_USER_INPUT.

// TextPattern states the text rule as a regular expression that ECMA-262
// (JSON Schema's dialect) and RE2 read alike: no character of Unicode's
// Cc category but tab, line feed and carriage return.
const TextPattern = `^[^` + TextControls + `]*$`

// TextControls are the characters the text rule refuses, as a regex class's
// contents (for patterns that add to the rule).
const TextControls = `\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F`

// TextError describes why a string breaks the text rule.
type TextError struct {
	Offset int  // byte offset of the first offending character
	Rune   rune // utf8.RuneError for invalid UTF-8
}

func (e *TextError) Error() string {
	if e.Rune == utf8.RuneError {
		return fmt.Sprintf("is not valid UTF-8 (byte %d)", e.Offset)
	}
	return fmt.Sprintf("contains the control character U+%04X at byte %d; only tab and line breaks are allowed", e.Rune, e.Offset)
}

// CheckText returns a *TextError when s breaks the text rule, else nil.
func CheckText(s string) error {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return &TextError{Offset: i, Rune: utf8.RuneError}
			}
		case r == '\t' || r == '\n' || r == '\r':
		case unicode.IsControl(r):
			return &TextError{Offset: i, Rune: r}
		}
	}
	return nil
}

// TextField records a text-rule violation of field in v (the message starts
// with the field's name, as every validation message does).
func (v *Validation) TextField(field, s string) {
	if err := CheckText(s); err != nil {
		v.Add(field, field+" "+err.Error())
	}
}

// InvalidText is the validation error of one field breaking the text rule,
// nil when s is fine.
func InvalidText(field, s string) error {
	var v Validation
	v.TextField(field, s)
	return v.Err()
}

// Quote wraps s in double quotes, as messages name a value.
func Quote(s string) string { return "\"" + s + "\"" }
