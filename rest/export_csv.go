package rest

import (
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// StatementCSVHeader is the export's CSV header (docs/exports.md): one row
// per line item, the statement's columns repeated on
// each; a statement without line items is one row with empty Line* columns.
// Money is a plain decimal; Currency and LineCurrency are the ISO 4217
// numeric codes of the JSON (840 = USD), empty when unknown. Sub-lines are
// in the NDJSON format only.
var StatementCSVHeader = []string{
	"StatementNumber", "Status", "StatementDate", "PayPeriodId", "PayPeriodTitle",
	"DriverId", "DriverName", "DriverType", "DriverCompanyName", "DriverSubsidiaryId", "DriverFleetName",
	"Currency", "GrossIncome", "NetIncome", "LineHaul", "Accessorials", "Echecks", "ServiceFee",
	"DriverPayment", "Deductions", "Reimbursements", "Credits", "Escrow", "Fuel", "Tolls", "Bonus",
	"Shortfall", "DailyPay", "DailyPerDiem", "StatementPerDiem", "TripValue", "NumberOfTrips",
	"LoadedMiles", "EmptyMiles", "HoursWorked",
	"LinePosition", "LineCategory", "LineTitle", "LinePolicyName", "LineTripNumber", "LineLoadNumber",
	"LineAmount", "LineCurrency", "LineTransactionType",
}

// csvNumeric marks the columns written as numbers (money, counts, codes):
// never neutralised, so "-125.50" stays a number in a spreadsheet.
var csvNumeric = func() []bool {
	num := make([]bool, len(StatementCSVHeader))
	for i, h := range StatementCSVHeader {
		switch h {
		case "StatementNumber", "Currency", "GrossIncome", "NetIncome", "LineHaul", "Accessorials", "Echecks", "ServiceFee",
			"DriverPayment", "Deductions", "Reimbursements", "Credits", "Escrow", "Fuel", "Tolls", "Bonus", "Shortfall",
			"DailyPay", "DailyPerDiem", "StatementPerDiem", "TripValue", "NumberOfTrips", "LoadedMiles", "EmptyMiles",
			"HoursWorked", "LinePosition", "LineAmount", "LineCurrency":
			num[i] = true
		}
	}
	return num
}()

// csvRows writes statements as RFC 4180 records (CRLF line ends, quotes
// only where needed), reusing one record and one line buffer. Unless raw,
// text cells are neutralised for spreadsheets (AppendCSVCell).
type csvRows struct {
	w    io.Writer
	rec  []string
	line []byte
	raw  bool
}

func newCSVRows(w io.Writer, raw bool) *csvRows {
	return &csvRows{w: w, rec: make([]string, len(StatementCSVHeader)), raw: raw}
}

func (c *csvRows) header() error { return c.write(StatementCSVHeader) }

func (c *csvRows) write(rec []string) error {
	b := c.line[:0]
	for i, f := range rec {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendCSVCell(b, f, !c.raw && !csvNumeric[i])
	}
	b = append(b, '\r', '\n')
	c.line = b
	_, err := c.w.Write(b)
	return err
}

// AppendCSVCell appends s as one RFC 4180 field, quoted where needed. With
// neutralise, a cell a spreadsheet would run as a formula (it starts with
// =, +, -, @, a tab or a carriage return, or their full-width forms) is
// written as OWASP's CSV-injection guidance says: a single quote in front,
// the whole cell quoted; a spreadsheet shows it as text.
func AppendCSVCell(dst []byte, s string, neutralise bool) []byte {
	if neutralise && formulaStart(s) {
		dst = append(dst, '"', '\'')
		return appendQuoted(dst, s)
	}
	if !csvNeedsQuotes(s) {
		return append(dst, s...)
	}
	dst = append(dst, '"')
	return appendQuoted(dst, s)
}

// appendQuoted appends s with its quotes doubled, and the closing quote.
func appendQuoted(dst []byte, s string) []byte {
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		dst = append(dst, s[:i+1]...)
		dst = append(dst, '"')
		s = s[i+1:]
	}
	dst = append(dst, s...)
	return append(dst, '"')
}

// formulaStart reports whether a spreadsheet would read s as a formula.
func formulaStart(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	switch r {
	case '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20': // ＝ ＋ － ＠
		return true
	}
	return false
}

// csvNeedsQuotes is encoding/csv's rule: a separator, quote or line break
// inside, a leading space, or the `\.` that some readers take for an end.
func csvNeedsQuotes(s string) bool {
	if s == "" {
		return false
	}
	if s == `\.` || strings.ContainsAny(s, ",\"\r\n") {
		return true
	}
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

func (c *csvRows) statement(s *reads.Statement) error {
	r := c.rec[:0]
	t := s.Totals
	totals := []*domain.Money{t.GrossIncome, t.NetIncome, t.LineHaul, t.Accessorials, t.Echecks, t.ServiceFee,
		t.DriverPayment, t.Deductions, t.Reimbursements, t.Credits, t.Escrow, t.Fuel, t.Tolls, t.Bonus,
		t.Shortfall, t.DailyPay, t.DailyPerDiem, t.StatementPerDiem, t.TripValue}
	currency := "" // one currency per statement: every total carries it
	for _, m := range totals {
		if m != nil && m.Currency != nil {
			currency = strconv.Itoa(*m.Currency)
			break
		}
	}
	r = append(r, strconv.Itoa(int(s.Number)), string(s.Status), s.StatementDate.String(), s.PayPeriodID, s.PayPeriodTitle,
		s.DriverID.String())
	if d := s.Driver; d != nil {
		sub := ""
		if d.SubsidiaryID != nil {
			sub = d.SubsidiaryID.String()
		}
		r = append(r, d.Name, string(d.Type), str(d.CompanyName), sub, str(d.FleetName))
	} else {
		r = append(r, "", "", "", "", "")
	}
	r = append(r, currency)
	for _, m := range totals {
		if m == nil {
			r = append(r, "")
		} else {
			r = append(r, m.Amount.String())
		}
	}
	trips := ""
	if t.NumberOfTrips != nil {
		trips = strconv.Itoa(*t.NumberOfTrips)
	}
	r = append(r, trips, dec(t.LoadedMiles), dec(t.EmptyMiles), dec(t.HoursWorked))
	fixed := len(r)
	if len(s.LineItems) == 0 {
		return c.write(append(r, "", "", "", "", "", "", "", "", ""))
	}
	for i, l := range s.LineItems {
		r = r[:fixed]
		cur, tt := "", ""
		if l.Amount.Currency != nil {
			cur = strconv.Itoa(*l.Amount.Currency)
		}
		if l.TransactionType != nil {
			tt = string(*l.TransactionType)
		}
		r = append(r, strconv.Itoa(i+1), l.Category, l.Title, str(l.PolicyName), str(l.TripNumber), str(l.LoadNumber),
			l.Amount.Amount.String(), cur, tt)
		if err := c.write(r); err != nil {
			return err
		}
	}
	return nil
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func dec(d *domain.Decimal) string {
	if d == nil {
		return ""
	}
	return d.String()
}
