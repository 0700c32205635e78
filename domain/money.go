package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/shopspring/decimal"
)

// USD is ISO 4217's numeric code for the US dollar, the default currency.
const USD = 840

// Money is an exact amount and its ISO 4217 numeric currency. Amount renders
// as a JSON number, never through a float64. Currency may be null (docs/api-contract.md §2.1,
// settlement statements).
type Money struct {
	Amount   decimal.Decimal
	Currency *int
}

// NewMoney is a convenience for an amount in a known currency.
func NewMoney(amount decimal.Decimal, currency int) Money {
	return Money{Amount: amount, Currency: &currency}
}

type moneyJSON struct {
	Amount   json.Number `json:"Amount"`
	Currency *int        `json:"Currency"`
}

// MarshalJSON writes {"Amount": <exact number>, "Currency": <int|null>}.
func (m Money) MarshalJSON() ([]byte, error) { return m.AppendJSON(make([]byte, 0, 48)), nil }

// AppendJSON appends what MarshalJSON writes.
func (m Money) AppendJSON(b []byte) []byte {
	b = AppendDecimal(append(b, `{"Amount":`...), m.Amount)
	b = append(b, `,"Currency":`...)
	if m.Currency == nil {
		return append(b, "null}"...)
	}
	return append(strconv.AppendInt(b, int64(*m.Currency), 10), '}')
}

// UnmarshalJSON reads the same shape, keeping the amount exact.
func (m *Money) UnmarshalJSON(b []byte) error {
	var v moneyJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return err
	}
	d, err := decimal.NewFromString(string(v.Amount))
	if err != nil {
		return fmt.Errorf("money: amount %q: %w", v.Amount, err)
	}
	m.Amount, m.Currency = d, v.Currency
	return nil
}

// Date is a calendar date rendered as yyyy-MM-dd.
type Date struct{ time.Time }

// DateOf truncates t to its UTC calendar day.
func DateOf(t time.Time) Date {
	y, mo, d := t.UTC().Date()
	return Date{time.Date(y, mo, d, 0, 0, 0, 0, time.UTC)}
}

// String renders the date as yyyy-MM-dd.
func (d Date) String() string { return d.Format(time.DateOnly) }

// MarshalJSON renders "yyyy-MM-dd".
func (d Date) MarshalJSON() ([]byte, error) { return d.AppendJSON(make([]byte, 0, 12)), nil }

// AppendJSON appends what MarshalJSON writes.
func (d Date) AppendJSON(b []byte) []byte {
	return append(d.AppendFormat(append(b, '"'), time.DateOnly), '"')
}

// UnmarshalJSON reads "yyyy-MM-dd".
func (d *Date) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	t, err := time.Parse(time.DateOnly, s)
	if err != nil {
		return err
	}
	d.Time = t
	return nil
}
