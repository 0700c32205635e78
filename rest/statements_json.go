package rest

import (
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// appendStatementPage appends a page of statements (docs/api-contract.md §4.2) and a newline
// exactly as json.NewEncoder(w).Encode(envelope(page)) writes them — a test
// holds it to that byte for byte over every field — without reflection:
// encoding/json was two fifths of the search's server CPU (~3,000 amounts,
// ~1,000 strings a page).
func appendStatementPage(b []byte, e Envelope[reads.Statement]) []byte {
	b = strconv.AppendInt(append(b, `{"Page":`...), int64(e.Page), 10)
	b = strconv.AppendInt(append(b, `,"PageSize":`...), int64(e.PageSize), 10)
	b = strconv.AppendInt(append(b, `,"Total":`...), int64(e.Total), 10)
	b = append(b, `,"Items":[`...)
	for i := range e.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendStatement(b, &e.Items[i])
	}
	return append(b, "]}\n"...)
}

func appendStatement(b []byte, s *reads.Statement) []byte {
	b = strconv.AppendInt(append(b, `{"Number":`...), int64(s.Number), 10)
	b = appendString(append(b, `,"Status":`...), string(s.Status))
	b = s.StatementDate.AppendJSON(append(b, `,"StatementDate":`...))
	b = appendString(append(b, `,"PayPeriodId":`...), s.PayPeriodID)
	b = appendString(append(b, `,"PayPeriodTitle":`...), s.PayPeriodTitle)
	b = append(b, `,"Driver":`...)
	if d := s.Driver; d == nil {
		b = append(b, "null"...)
	} else {
		b = appendUUID(append(b, `{"Id":`...), d.ID)
		b = appendString(append(b, `,"Name":`...), d.Name)
		b = appendString(append(b, `,"Type":`...), string(d.Type))
		b = appendOptString(append(b, `,"CompanyName":`...), d.CompanyName)
		b = append(b, `,"SubsidiaryId":`...)
		if d.SubsidiaryID == nil {
			b = append(b, "null"...)
		} else {
			b = appendUUID(b, *d.SubsidiaryID)
		}
		b = append(appendOptString(append(b, `,"FleetName":`...), d.FleetName), '}')
	}
	b = appendTotals(append(b, `,"Totals":`...), &s.Totals)
	b = append(b, `,"LineItems":`...)
	if s.LineItems == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range s.LineItems {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendLine(b, &s.LineItems[i])
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

func appendTotals(b []byte, t *reads.StatementTotals) []byte {
	b = append(b, '{')
	first := true
	key := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(append(append(b, '"'), name...), `":`...)
	}
	for _, m := range []struct {
		name  string
		money *domain.Money
	}{
		{"GrossIncome", t.GrossIncome}, {"NetIncome", t.NetIncome}, {"LineHaul", t.LineHaul},
		{"Accessorials", t.Accessorials}, {"Echecks", t.Echecks}, {"ServiceFee", t.ServiceFee},
		{"DriverPayment", t.DriverPayment}, {"Deductions", t.Deductions}, {"Reimbursements", t.Reimbursements},
		{"Credits", t.Credits}, {"Escrow", t.Escrow}, {"Fuel", t.Fuel}, {"Tolls", t.Tolls}, {"Bonus", t.Bonus},
		{"Shortfall", t.Shortfall}, {"DailyPay", t.DailyPay}, {"DailyPerDiem", t.DailyPerDiem},
		{"StatementPerDiem", t.StatementPerDiem}, {"TripValue", t.TripValue},
	} {
		if m.money != nil {
			key(m.name)
			b = m.money.AppendJSON(b)
		}
	}
	if t.NumberOfTrips != nil {
		key("NumberOfTrips")
		b = strconv.AppendInt(b, int64(*t.NumberOfTrips), 10)
	}
	for _, d := range []struct {
		name  string
		value *domain.Decimal
	}{{"LoadedMiles", t.LoadedMiles}, {"EmptyMiles", t.EmptyMiles}, {"HoursWorked", t.HoursWorked}} {
		if d.value != nil {
			key(d.name)
			b = domain.AppendDecimal(b, d.value.Decimal)
		}
	}
	return append(b, '}')
}

func appendLine(b []byte, l *reads.StatementLine) []byte {
	b = appendString(append(b, `{"Category":`...), l.Category)
	b = appendString(append(b, `,"Title":`...), l.Title)
	b = appendOptString(append(b, `,"PolicyName":`...), l.PolicyName)
	b = appendOptString(append(b, `,"TripNumber":`...), l.TripNumber)
	b = appendOptString(append(b, `,"LoadNumber":`...), l.LoadNumber)
	b = l.Amount.AppendJSON(append(b, `,"Amount":`...))
	b = append(b, `,"TransactionType":`...)
	if l.TransactionType == nil {
		b = append(b, "null"...)
	} else {
		b = appendString(b, string(*l.TransactionType))
	}
	b = append(b, `,"SubLines":`...)
	if l.SubLines == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i := range l.SubLines {
		s := &l.SubLines[i]
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(append(b, `{"Description":`...), s.Description)
		b = appendString(append(b, `,"Quantity":`...), s.Quantity)
		b = appendString(append(b, `,"Rate":`...), s.Rate)
		b = append(s.Amount.AppendJSON(append(b, `,"Amount":`...)), '}')
	}
	return append(b, "]}"...)
}

// appendUUID writes id's text form (what its MarshalText gives) quoted.
func appendUUID(b []byte, id uuid.UUID) []byte {
	var s [36]byte
	hex.Encode(s[0:8], id[0:4])
	hex.Encode(s[9:13], id[4:6])
	hex.Encode(s[14:18], id[6:8])
	hex.Encode(s[19:23], id[8:10])
	hex.Encode(s[24:36], id[10:16])
	s[8], s[13], s[18], s[23] = '-', '-', '-', '-'
	return append(append(append(b, '"'), s[:]...), '"')
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s)
}

// appendString writes s as encoding/json does (HTML-safe): a string of
// plain printable ASCII as it is, anything else through json.Marshal.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}
