package domain

import "github.com/shopspring/decimal"

// Decimal is an exact number that is not Money (line-item Units and Rate,
// statement miles and hours, load weight). It renders as a JSON number,
// never a string: shopspring/decimal quotes its values unless a global of
// the library is changed, and this type says it where it is used instead.
type Decimal struct{ decimal.Decimal }

// MarshalJSON writes the exact number unquoted.
func (d Decimal) MarshalJSON() ([]byte, error) { return AppendDecimal(nil, d.Decimal), nil }

// DecimalPtr wraps d, keeping nil as nil.
func DecimalPtr(d *decimal.Decimal) *Decimal {
	if d == nil {
		return nil
	}
	return &Decimal{*d}
}
