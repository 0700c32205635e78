package domain

import (
	"strconv"

	"github.com/shopspring/decimal"
)

// AppendDecimal appends d as d.String() writes it. Amounts read from
// PostgreSQL have a coefficient of at most 18 digits and a scale of at most
// 18, and for those it writes the digits from the int64 coefficient instead
// of String's big.Int text and string concatenation (a page of statements
// renders ~3,000 amounts).
func AppendDecimal(dst []byte, d decimal.Decimal) []byte {
	exp := int(d.Exponent())
	if exp > 0 || exp < -18 || d.NumDigits() > 18 || !decimal.TrimTrailingZeros || decimal.UseScientificNotation {
		return append(dst, d.String()...)
	}
	c := d.CoefficientInt64()
	if c < 0 {
		dst = append(dst, '-')
		c = -c
	}
	var buf [20]byte
	digits := strconv.AppendInt(buf[:0], c, 10)
	scale := -exp
	intLen := len(digits) - scale
	if intLen > 0 {
		dst = append(dst, digits[:intLen]...)
	} else {
		dst = append(dst, '0')
	}
	// The fraction is scale digits: leading zeros, then what the
	// coefficient has below the point; trailing zeros are trimmed.
	frac := digits[max(intLen, 0):]
	end := len(frac)
	for end > 0 && frac[end-1] == '0' {
		end--
	}
	if end == 0 {
		return dst
	}
	dst = append(dst, '.')
	for range max(-intLen, 0) {
		dst = append(dst, '0')
	}
	return append(dst, frac[:end]...)
}
