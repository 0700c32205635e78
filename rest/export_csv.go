package rest

import (
	"encoding/csv"
	"io"
	"strconv"

	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/domain"
)

// StatementCSVHeader is the export's CSV header (README: "Exporting
// statements"): one row per line item, the statement's columns repeated on
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

// csvRows writes statements as RFC 4180 records (CRLF line ends, quotes
// only where needed), reusing one record buffer. Given a *bufio.Writer,
// csv.Writer writes into it directly (no second buffer).
type csvRows struct {
	w   *csv.Writer
	rec []string
}

func newCSVRows(w io.Writer) *csvRows {
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	return &csvRows{w: cw, rec: make([]string, len(StatementCSVHeader))}
}

func (c *csvRows) header() error { return c.write(StatementCSVHeader) }

func (c *csvRows) write(rec []string) error {
	return c.w.Write(rec)
}

func (c *csvRows) statement(s *domain.Statement) error {
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

func dec(d *decimal.Decimal) string {
	if d == nil {
		return ""
	}
	return d.String()
}
