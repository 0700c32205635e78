package storage

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// TestDecodeNumeric: the fast binary decoding gives pgx's value for every
// numeric of at most 18 digits (as pgx encodes them, and in PostgreSQL's
// own padded form), and declines NaN, the infinities and longer values,
// which then take pgx's way.
func TestDecodeNumeric(t *testing.T) {
	t.Parallel()
	m := pgtype.NewMap()
	encode := func(n pgtype.Numeric) []byte {
		b, err := m.Encode(pgtype.NumericOID, pgtype.BinaryFormatCode, n, nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 20000 {
		v := r.Int64N(1e14) - 5e13
		if i%5 == 0 {
			v = r.Int64N(1000) - 500
		}
		exp := -int32(r.IntN(8))
		b := encode(pgtype.Numeric{Int: big.NewInt(v), Exp: exp, Valid: true})
		coef, scale, ok := decodeNumeric(b)
		if !ok || !decimal.New(coef, -scale).Equal(decimal.New(v, exp)) {
			t.Fatalf("%d×10^%d decoded as %d×10^-%d (ok %v)", v, exp, coef, scale, ok)
		}
	}
	// PostgreSQL's own form of 1002.10 (numeric(14,2)): digits 1002 and
	// 1000 (the second group padded past dscale 2), and of -0.0001.
	for _, c := range []struct {
		src  []byte
		want string
	}{
		{[]byte{0, 2, 0, 0, 0, 0, 0, 2, 0x03, 0xea, 0x03, 0xe8}, "1002.1"},
		{[]byte{0, 1, 0xff, 0xff, 0x40, 0, 0, 4, 0, 1}, "-0.0001"},
		{[]byte{0, 0, 0, 0, 0, 0, 0, 2}, "0"},
	} {
		coef, scale, ok := decodeNumeric(c.src)
		if got := decimal.New(coef, -scale).String(); !ok || got != c.want {
			t.Errorf("% x decoded as %s (ok %v), want %s", c.src, got, ok, c.want)
		}
	}
	huge, _ := new(big.Int).SetString("1234567890123456789012", 10)
	for name, n := range map[string]pgtype.Numeric{
		"NaN":       {NaN: true, Valid: true},
		"Infinity":  {InfinityModifier: pgtype.Infinity, Valid: true},
		"22 digits": {Int: huge, Exp: -2, Valid: true},
	} {
		if _, _, ok := decodeNumeric(encode(n)); ok {
			t.Errorf("%s was decoded as an int64", name)
		}
	}
}
