package scalars

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/domain"
)

func TestDecimalIsExact(t *testing.T) {
	t.Parallel()
	d, err := UnmarshalDecimal(json.Number("12345678901234567.89"))
	if err != nil || d.String() != "12345678901234567.89" {
		t.Fatalf("%s %v", d, err)
	}
	var b bytes.Buffer
	b.WriteString("x")
	MarshalDecimal(decimal.RequireFromString("-0.10")).MarshalGQL(&b)
	if b.String() != "x-0.1" {
		t.Errorf("marshal %q", b.String())
	}
	var s strings.Builder // not a bytes.Buffer: written through a buffer of its own
	MarshalDecimal(decimal.RequireFromString("1234567890123456789012.5")).MarshalGQL(&s)
	if s.String() != "1234567890123456789012.5" {
		t.Errorf("marshal %q", s.String())
	}
	if _, err := UnmarshalDecimal("ten"); domain.CodeOf(err) != domain.CodeInvalid {
		t.Errorf("bad decimal: %v", err)
	}
}

func TestDateTimeAndDate(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	MarshalDateTime(time.Date(2025, 3, 1, 2, 0, 0, 0, time.FixedZone("x", 2*3600))).MarshalGQL(&b)
	if b.String() != `"2025-03-01T00:00:00Z"` {
		t.Errorf("date-time %s, want UTC", b.String())
	}
	if _, err := UnmarshalDateTime("2025-03-01"); domain.CodeOf(err) != domain.CodeInvalid {
		t.Errorf("date without time: %v", err)
	}
	b.Reset()
	MarshalDate(domain.DateOf(time.Date(2025, 3, 1, 23, 0, 0, 0, time.UTC))).MarshalGQL(&b)
	if b.String() != `"2025-03-01"` {
		t.Errorf("date %s", b.String())
	}
	if _, err := UnmarshalDate("03/01/2025"); domain.CodeOf(err) != domain.CodeInvalid {
		t.Errorf("bad date: %v", err)
	}
}
