package storage

import (
	"encoding/binary"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/shopspring/decimal"
)

// numeric is a scanned PostgreSQL numeric as the decimal the domain holds.
// pgx builds every numeric as a big.Int from its base-10000 digits, which
// the read then copied into a decimal: a third of a statement page's
// scanning (~2,500 amounts). numericCodec decodes the binary form of the
// amounts the schema stores (at most 18 digits) straight into an int64
// coefficient; anything else (NaN, infinity, more digits, text format)
// takes pgx's way through ScanNumeric.
type numeric struct {
	d     decimal.Decimal
	valid bool
	nan   bool
}

// ScanNumeric is pgx's way, for what numericCodec does not decode itself.
func (n *numeric) ScanNumeric(v pgtype.Numeric) error {
	*n = numeric{valid: v.Valid, nan: v.NaN}
	if v.Valid && !v.NaN && v.Int != nil && v.InfinityModifier == pgtype.Finite {
		n.d = decimal.NewFromBigInt(v.Int, v.Exp)
	}
	return nil
}

// dec is the value; NULL and NaN are zero (callers that care about NULL use
// decPtr).
func (n numeric) dec() decimal.Decimal {
	if !n.valid || n.nan {
		return decimal.Zero
	}
	return n.d
}

// decPtr is dec with NULL as nil.
func (n numeric) decPtr() *decimal.Decimal {
	if !n.valid {
		return nil
	}
	d := n.dec()
	return &d
}

// numericCodec is pgx's numeric codec with the fast binary scan into
// *numeric.
type numericCodec struct{ pgtype.NumericCodec }

func (c numericCodec) PlanScan(m *pgtype.Map, oid uint32, format int16, target any) pgtype.ScanPlan {
	if _, ok := target.(*numeric); ok && format == pgtype.BinaryFormatCode {
		return numericScanPlan{next: c.NumericCodec.PlanScan(m, oid, format, target)}
	}
	return c.NumericCodec.PlanScan(m, oid, format, target)
}

type numericScanPlan struct{ next pgtype.ScanPlan }

func (p numericScanPlan) Scan(src []byte, dst any) error {
	n := dst.(*numeric)
	if src == nil {
		*n = numeric{}
		return nil
	}
	if coef, scale, ok := decodeNumeric(src); ok {
		*n = numeric{d: decimal.New(coef, -scale), valid: true}
		return nil
	}
	return p.next.Scan(src, dst)
}

var pow10 = [...]int64{1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18}

// decodeNumeric reads PostgreSQL's binary numeric (ndigits, weight, sign,
// dscale, then ndigits base-10000 digits, the first worth 10000^weight) as
// coefficient × 10^-scale; ok is false for what does not fit in 18 digits,
// NaN and the infinities.
func decodeNumeric(src []byte) (coef int64, scale int32, ok bool) {
	if len(src) < 8 {
		return 0, 0, false
	}
	ndigits := int(int16(binary.BigEndian.Uint16(src)))
	weight := int(int16(binary.BigEndian.Uint16(src[2:])))
	sign := binary.BigEndian.Uint16(src[4:])
	dscale := int(int16(binary.BigEndian.Uint16(src[6:])))
	if (sign != 0 && sign != 0x4000) || ndigits < 0 || dscale < 0 || len(src) != 8+2*ndigits || 4*(weight+1)+dscale > 18 {
		return 0, 0, false
	}
	for i := range ndigits {
		d := int64(binary.BigEndian.Uint16(src[8+2*i:]))
		switch p := 4*(weight-i) + dscale; {
		case p >= 0 && p < len(pow10):
			coef += d * pow10[p] // 4*(weight+1)+dscale ≤ 18 digits: no overflow
		case p < 0 && -p < 4 && d%pow10[-p] == 0:
			coef += d / pow10[-p] // a last group padded with zeros past dscale
		case p < 0 && d == 0:
		default:
			return 0, 0, false
		}
	}
	if sign == 0x4000 {
		coef = -coef
	}
	return coef, int32(dscale), true
}

// registerNumeric puts numericCodec in a connection's type map.
func registerNumeric(m *pgtype.Map) {
	t := &pgtype.Type{Name: "numeric", OID: pgtype.NumericOID, Codec: numericCodec{}}
	m.RegisterType(t)
	m.RegisterType(&pgtype.Type{Name: "_numeric", OID: pgtype.NumericArrayOID, Codec: &pgtype.ArrayCodec{ElementType: t}})
}
