// Package scalars marshals HaulGraph's custom GraphQL scalars: Decimal (exact,
// a JSON number on output) and Date (yyyy-MM-dd).
package scalars

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/domain"
)

// MarshalDecimal writes the exact decimal as a JSON number.
func MarshalDecimal(d decimal.Decimal) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { _, _ = io.WriteString(w, d.String()) })
}

// UnmarshalDecimal reads a number (kept exact: variables are decoded with
// UseNumber) or a numeric string.
func UnmarshalDecimal(v any) (decimal.Decimal, error) {
	switch x := v.(type) {
	case json.Number:
		return decimal.NewFromString(string(x))
	case string:
		return decimal.NewFromString(x)
	case int:
		return decimal.NewFromInt(int64(x)), nil
	case int64:
		return decimal.NewFromInt(x), nil
	case float64:
		return decimal.NewFromString(strconv.FormatFloat(x, 'f', -1, 64))
	}
	return decimal.Decimal{}, fmt.Errorf("Decimal: %T is not a number", v)
}

// MarshalDate writes "yyyy-MM-dd".
func MarshalDate(d domain.Date) graphql.Marshaler {
	return graphql.WriterFunc(func(w io.Writer) { _, _ = io.WriteString(w, strconv.Quote(d.String())) })
}

// UnmarshalDate reads "yyyy-MM-dd".
func UnmarshalDate(v any) (domain.Date, error) {
	s, ok := v.(string)
	if !ok {
		return domain.Date{}, fmt.Errorf("Date: %T is not a string", v)
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return domain.Date{}, fmt.Errorf("Date: %q is not yyyy-MM-dd", s)
	}
	return domain.Date{Time: t}, nil
}
