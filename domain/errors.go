package domain

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Code classifies an error for every transport: REST maps it to an HTTP
// status in one place, GraphQL to extensions.code.
type Code string

const (
	CodeInvalid         Code = "BAD_USER_INPUT"
	CodeUnauthenticated Code = "UNAUTHENTICATED"
	CodeForbidden       Code = "FORBIDDEN"
	CodeNotFound        Code = "NOT_FOUND"
	CodeConflict        Code = "CONFLICT"
	CodeTooLarge        Code = "PAYLOAD_TOO_LARGE"
	CodeUnsupportedType Code = "UNSUPPORTED_MEDIA_TYPE"
	CodeRateLimited     Code = "RATE_LIMITED"
	CodeUnavailable     Code = "SERVICE_UNAVAILABLE"
	CodeInternal        Code = "INTERNAL"
)

// CodeUnprocessable is input that is well-formed but refused by the thing it
// names (a broker refusing the credentials, an exchange that does not exist):
// the request's syntax is right, the world it points at is not.
const CodeUnprocessable Code = "UNPROCESSABLE"

// Error is a domain error a client may see: a code, a safe message, and for
// validation failures the offending fields with their messages.
type Error struct {
	Code    Code
	Message string
	Fields  map[string][]string
}

func (e *Error) Error() string {
	if len(e.Fields) == 0 {
		return e.Message
	}
	keys := make([]string, 0, len(e.Fields))
	for k := range e.Fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, 0, len(keys))
	for _, k := range keys {
		parts = append(parts, k+": "+strings.Join(e.Fields[k], "; "))
	}
	return e.Message + ": " + strings.Join(parts, ", ")
}

// NotFound reports a missing resource (or one of another tenant: the two are
// indistinguishable on purpose).
func NotFound(format string, args ...any) error {
	return &Error{Code: CodeNotFound, Message: fmt.Sprintf(format, args...)}
}

// Invalid reports bad input that is not tied to one field.
func Invalid(format string, args ...any) error {
	return &Error{Code: CodeInvalid, Message: fmt.Sprintf(format, args...)}
}

// Forbidden reports a permission failure.
func Forbidden(format string, args ...any) error {
	return &Error{Code: CodeForbidden, Message: fmt.Sprintf(format, args...)}
}

// Validation collects field errors; Err returns nil when there are none.
type Validation struct{ fields map[string][]string }

// Add records msg against field (a JSON path such as "StatementDateRange.End").
func (v *Validation) Add(field, msg string) {
	if v.fields == nil {
		v.fields = map[string][]string{}
	}
	v.fields[field] = append(v.fields[field], msg)
}

// Has reports whether field has an error already (a later, costlier check
// of it is then skipped).
func (v *Validation) Has(field string) bool { return len(v.fields[field]) > 0 }

// Err is the collected validation error, or nil.
func (v *Validation) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return &Error{Code: CodeInvalid, Message: "the request has invalid fields", Fields: v.fields}
}

// Refused reports a well-formed field that the thing it names refused
// (CodeUnprocessable).
func Refused(field, msg string) error {
	return &Error{Code: CodeUnprocessable, Message: "a field was refused by what it names", Fields: map[string][]string{field: {msg}}}
}

// CodeOf returns the code of err, CodeInternal for anything not a domain error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(Classify(err), &e) {
		return e.Code
	}
	return CodeInternal
}

// ErrUnavailable answers any request that needed the database while it
// cannot be reached: the client retries after UnavailableRetryAfter seconds.
var ErrUnavailable = &Error{Code: CodeUnavailable, Message: "the service is temporarily unavailable: retry after the number of seconds in Retry-After"}

// UnavailableRetryAfter is the Retry-After, in seconds, of ErrUnavailable.
const UnavailableRetryAfter = 5

// Classify is err as a client may see it: a domain error as it is, a
// failure to reach the database as ErrUnavailable, anything else unchanged
// (transports answer it as an internal error).
func Classify(err error) error {
	var e *Error
	if err == nil || errors.As(err, &e) {
		return err
	}
	if Unreachable(err) {
		return ErrUnavailable
	}
	return err
}

// FieldError is a validation error of one field.
func FieldError(field, msg string) error {
	var v Validation
	v.Add(field, msg)
	return v.Err()
}
