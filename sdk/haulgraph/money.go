package haulgraph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
)

// Decimal is an exact decimal number as the API wrote it ("1234.50"). It is
// never converted to a float: read it with Rat, add with Add, print it with
// String or StringFixed. The zero value is 0.
type Decimal string

// ParseDecimal checks that s is a decimal number (JSON number syntax).
func ParseDecimal(s string) (Decimal, error) {
	if !json.Valid([]byte(s)) || !isNumber(s) {
		return "", fmt.Errorf("haulgraph: %q is not a decimal number", s)
	}
	return Decimal(s), nil
}

// MustDecimal is ParseDecimal for constants; it panics on a bad literal.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

func isNumber(s string) bool {
	var n json.Number
	return json.Unmarshal([]byte(s), &n) == nil && s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))
}

// String is the decimal text ("0" for the zero value).
func (d Decimal) String() string {
	if d == "" {
		return "0"
	}
	return string(d)
}

// Rat is the exact value.
func (d Decimal) Rat() *big.Rat {
	r, ok := new(big.Rat).SetString(d.String())
	if !ok {
		return new(big.Rat)
	}
	return r
}

// Add is d + e, exactly.
func (d Decimal) Add(e Decimal) Decimal {
	sum := new(big.Rat).Add(d.Rat(), e.Rat())
	return Decimal(ratText(sum, max(scale(d), scale(e))))
}

// Cmp compares d and e: -1, 0 or +1.
func (d Decimal) Cmp(e Decimal) int { return d.Rat().Cmp(e.Rat()) }

// IsZero reports whether d is 0.
func (d Decimal) IsZero() bool { return d.Rat().Sign() == 0 }

// StringFixed is d rounded half away from zero to places digits after the
// point ("12.5" → "12.50").
func (d Decimal) StringFixed(places int) string { return d.Rat().FloatString(places) }

// scale is the number of digits after the point (an exponent counts).
func scale(d Decimal) int {
	s := strings.ToLower(d.String())
	if strings.ContainsAny(s, "e") {
		return 18
	}
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}

// ratText writes r with places digits after the point, the larger scale
// of the operands, so that "0.10" + "0.20" is "0.30"; an operand written
// with an exponent is written out in full, without trailing zeros.
func ratText(r *big.Rat, places int) string {
	s := r.FloatString(places)
	if places == 18 && strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// MarshalJSON writes the decimal as a JSON number, digit for digit.
func (d Decimal) MarshalJSON() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalJSON keeps a JSON number's text as it is (a quoted number is
// accepted too); it never passes through a float.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*d = ""
		return nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
	}
	if !isNumber(s) {
		return errors.New("haulgraph: not a decimal number: " + s)
	}
	*d = Decimal(s)
	return nil
}

// Currency is an ISO 4217 numeric currency code.
type Currency int

// The currencies the API's data uses.
const (
	USD Currency = 840
	CAD Currency = 124
	MXN Currency = 484
)

// String is the code's letters for the known currencies ("USD"), else the
// number.
func (c Currency) String() string {
	switch c {
	case USD:
		return "USD"
	case CAD:
		return "CAD"
	case MXN:
		return "MXN"
	}
	return fmt.Sprint(int(c))
}

// Money is an amount with its currency, as every REST route, GraphQL field,
// event and webhook carries it. Currency is nil when the API names none
// (the tenant's currency, USD unless configured otherwise).
type Money struct {
	Amount   Decimal   `json:"Amount"`
	Currency *Currency `json:"Currency"`
}

// NewMoney is amount in currency.
func NewMoney(amount Decimal, currency Currency) *Money {
	return &Money{Amount: amount, Currency: &currency}
}

// Value is the amount, 0 for a nil Money (an absent total).
func (m *Money) Value() Decimal {
	if m == nil {
		return "0"
	}
	return m.Amount.nonEmpty()
}

func (d Decimal) nonEmpty() Decimal {
	if d == "" {
		return "0"
	}
	return d
}

// String is "1234.50 USD".
func (m *Money) String() string {
	if m == nil {
		return "<nil>"
	}
	if m.Currency == nil {
		return m.Amount.String()
	}
	return m.Amount.String() + " " + m.Currency.String()
}

// graphMoney is Money as GraphQL's MoneyInput spells it.
func (m *Money) graph() map[string]any {
	if m == nil {
		return nil
	}
	v := map[string]any{"amount": m.Amount.nonEmpty()}
	if m.Currency != nil {
		v["currency"] = int(*m.Currency)
	}
	return v
}
