package domain

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/shopspring/decimal"
)

// TestAppendDecimalWritesString: AppendDecimal writes exactly what
// decimal.String writes, across signs, scales, leading and trailing zeros
// and coefficients too large for its fast path.
func TestAppendDecimalWritesString(t *testing.T) {
	t.Parallel()
	values := []decimal.Decimal{
		{}, decimal.New(0, -2), decimal.New(-5, -1), decimal.New(5, -3), decimal.New(120, -2), decimal.New(-100, -2),
		decimal.New(123456, 0), decimal.New(12, 3), decimal.New(1, -18), decimal.New(-1, -19), decimal.New(math.MaxInt64, -4),
		decimal.New(math.MinInt64, -2), decimal.New(999999999999999999, -18), decimal.RequireFromString("123456789012345678901234.5600"),
		decimal.RequireFromString("-0.000100"), decimal.RequireFromString("1e-30"),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 5000 {
		values = append(values, decimal.New(r.Int64N(1<<40)-1<<39, -int32(r.IntN(12))))
	}
	for _, d := range values {
		if got, want := string(AppendDecimal([]byte("x"), d)), "x"+d.String(); got != want {
			t.Fatalf("AppendDecimal(%s) = %q, want %q", d.String(), got, want)
		}
	}
}

// TestMoneyAndDateJSON: Money and Date write the JSON encoding/json writes
// for their documented shapes, and Money reads back what it wrote.
func TestMoneyAndDateJSON(t *testing.T) {
	t.Parallel()
	usd, zero := USD, 0
	for _, m := range []Money{{}, {Amount: decimal.New(-1205, -2), Currency: &usd}, {Amount: decimal.New(7, 0), Currency: &zero},
		{Amount: decimal.RequireFromString("123456789012345678901234.56")}} {
		got, _ := m.MarshalJSON()
		want, _ := json.Marshal(moneyJSON{Amount: json.Number(m.Amount.String()), Currency: m.Currency})
		if string(got) != string(want) {
			t.Errorf("Money %v wrote %s, want %s", m, got, want)
		}
		var back Money
		if err := back.UnmarshalJSON(got); err != nil || !back.Amount.Equal(m.Amount) || (back.Currency == nil) != (m.Currency == nil) {
			t.Errorf("Money %s read back as %v (%v)", got, back, err)
		}
	}
	d := DateOf(time.Date(2025, 3, 9, 23, 30, 0, 0, time.UTC))
	if got, _ := d.MarshalJSON(); string(got) != `"2025-03-09"` {
		t.Errorf("Date wrote %s", got)
	}
}
