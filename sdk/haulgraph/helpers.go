package haulgraph

import "github.com/shopspring/decimal"

// Small conveniences over the generated types, whose optional fields are
// pointers.

// Value is the amount, zero for a nil (absent) Money.
func (m *Money) Value() decimal.Decimal {
	if m == nil {
		return decimal.Zero
	}
	return m.Amount
}

// DriverName is the statement's driver's name ("" without a driver).
func (s Statement) DriverName() string {
	if s.Driver == nil {
		return ""
	}
	return s.Driver.Name
}

// Ptr returns a pointer to v, for the generated types' optional fields.
func Ptr[T any](v T) *T { return &v }
