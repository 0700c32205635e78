// Package scalars marshals HaulGraph's custom GraphQL scalars: DateTime (UTC
// on output), Decimal (exact, a JSON number on output) and Date (yyyy-MM-dd).
// Input errors are domain errors, so clients see BAD_USER_INPUT.
package scalars

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/domain"
)

// badInput is a coercion failure: the client's fault, BAD_USER_INPUT.
func badInput(format string, args ...any) error { return domain.Invalid(format, args...) }

// MarshalDateTime writes an ISO 8601 date-time in UTC.
func MarshalDateTime(t time.Time) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { _, _ = io.WriteString(w, strconv.Quote(t.UTC().Format(time.RFC3339Nano))) })
}

// UnmarshalDateTime reads a date-time by domain's one rule (RFC 3339 with
// an offset, within domain.MinTime..MaxTime), as REST does.
func UnmarshalDateTime(v any) (time.Time, error) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, badInput("DateTime: %T is not a string", v)
	}
	t, err := domain.ParseDateTime(s)
	if err != nil {
		return time.Time{}, badInput("DateTime %q %v", s, err)
	}
	return t, nil
}

// MarshalDecimal writes the exact decimal as a JSON number.
func MarshalDecimal(d decimal.Decimal) graphql.Marshaler { return decimalJSON(d) }

// MarshalDomainDecimal writes the domain's exact number as a JSON number.
func MarshalDomainDecimal(d domain.Decimal) graphql.Marshaler { return decimalJSON(d.Decimal) }

// UnmarshalDomainDecimal reads what UnmarshalDecimal reads.
func UnmarshalDomainDecimal(v any) (domain.Decimal, error) {
	d, err := UnmarshalDecimal(v)
	return domain.Decimal{Decimal: d}, err
}

// decimalJSON appends its digits straight into the response buffer (a
// dashboard page has ~3,000 amounts).
type decimalJSON decimal.Decimal

func (d decimalJSON) MarshalGQL(w io.Writer) {
	if b, ok := w.(*bytes.Buffer); ok {
		_, _ = b.Write(domain.AppendDecimal(b.AvailableBuffer(), decimal.Decimal(d)))
		return
	}
	var buf [40]byte
	_, _ = w.Write(domain.AppendDecimal(buf[:0], decimal.Decimal(d)))
}

// UnmarshalDecimal reads a number (kept exact: variables are decoded with
// UseNumber) or a numeric string.
func UnmarshalDecimal(v any) (decimal.Decimal, error) {
	var s string
	switch x := v.(type) {
	case json.Number:
		s = string(x)
	case string:
		s = x
	case int:
		return decimal.NewFromInt(int64(x)), nil
	case int64:
		return decimal.NewFromInt(x), nil
	case float64:
		s = strconv.FormatFloat(x, 'f', -1, 64)
	default:
		return decimal.Decimal{}, badInput("Decimal: %T is not a number", v)
	}
	d, err := decimal.NewFromString(s)
	if err != nil {
		return decimal.Decimal{}, badInput("Decimal: %q is not a number", s)
	}
	return d, nil
}

// MarshalDate writes "yyyy-MM-dd".
func MarshalDate(d domain.Date) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { _, _ = io.WriteString(w, strconv.Quote(d.String())) })
}

// UnmarshalDate reads "yyyy-MM-dd".
func UnmarshalDate(v any) (domain.Date, error) {
	s, ok := v.(string)
	if !ok {
		return domain.Date{}, badInput("Date: %T is not a string", v)
	}
	d, err := domain.ParseDate(s)
	if err != nil {
		return domain.Date{}, badInput("Date %q %v", s, err)
	}
	return d, nil
}

// MarshalString writes a String as gqlgen does.
func MarshalString(s string) graphql.Marshaler { return graphql.MarshalString(s) }

// UnmarshalString reads a String: only a string (the GraphQL spec's input
// coercion; gqlgen would also take numbers and booleans) under domain's text
// rule (no NUL or other control characters but tab and line breaks, valid
// UTF-8), so no input string of either transport reaches SQL unchecked.
func UnmarshalString(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", badInput("String: %T is not a string", v)
	}
	if err := domain.CheckText(s); err != nil {
		return "", badInput("String %v", err)
	}
	return s, nil
}

// MarshalID writes an ID as gqlgen does.
func MarshalID(s string) graphql.Marshaler { return graphql.MarshalID(s) }

// UnmarshalID reads an ID (a string or an integer) under the text rule.
func UnmarshalID(v any) (string, error) {
	s, err := graphql.UnmarshalID(v)
	if err != nil {
		return "", badInput("ID: %v", err)
	}
	if err := domain.CheckText(s); err != nil {
		return "", badInput("ID %v", err)
	}
	return s, nil
}
