package storage

import (
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// The statement export (export_statements.go) scans these rows; the hot reads
// (reads_statements.go) scan straight into reads.Statement.

type statementRow struct {
	ID               uuid.UUID           `db:"id"`
	Number           int32               `db:"number"`
	Status           string              `db:"status"`
	StatementDate    time.Time           `db:"statement_date"`
	PayPeriodID      string              `db:"pay_period_id"`
	PayPeriodTitle   string              `db:"pay_period_title"`
	DriverID         uuid.UUID           `db:"driver_id"`
	Currency         *int                `db:"currency"`
	GrossIncome      decimal.NullDecimal `db:"gross_income"`
	NetIncome        decimal.NullDecimal `db:"net_income"`
	LineHaul         decimal.NullDecimal `db:"line_haul"`
	Accessorials     decimal.NullDecimal `db:"accessorials"`
	Echecks          decimal.NullDecimal `db:"echecks"`
	ServiceFee       decimal.NullDecimal `db:"service_fee"`
	DriverPayment    decimal.NullDecimal `db:"driver_payment"`
	Deductions       decimal.NullDecimal `db:"deductions"`
	Reimbursements   decimal.NullDecimal `db:"reimbursements"`
	Credits          decimal.NullDecimal `db:"credits"`
	Escrow           decimal.NullDecimal `db:"escrow"`
	Fuel             decimal.NullDecimal `db:"fuel"`
	Tolls            decimal.NullDecimal `db:"tolls"`
	Bonus            decimal.NullDecimal `db:"bonus"`
	Shortfall        decimal.NullDecimal `db:"shortfall"`
	DailyPay         decimal.NullDecimal `db:"daily_pay"`
	DailyPerDiem     decimal.NullDecimal `db:"daily_per_diem"`
	StatementPerDiem decimal.NullDecimal `db:"statement_per_diem"`
	TripValue        decimal.NullDecimal `db:"trip_value"`
	NumberOfTrips    *int                `db:"number_of_trips"`
	LoadedMiles      decimal.NullDecimal `db:"loaded_miles"`
	EmptyMiles       decimal.NullDecimal `db:"empty_miles"`
	HoursWorked      decimal.NullDecimal `db:"hours_worked"`
}

const statementCols = `s.id, s.number, s.status, s.statement_date, s.pay_period_id, s.pay_period_title,
	s.driver_id, s.currency, s.gross_income, s.net_income, s.line_haul, s.accessorials, s.echecks,
	s.service_fee, s.driver_payment, s.deductions, s.reimbursements, s.credits, s.escrow, s.fuel,
	s.tolls, s.bonus, s.shortfall, s.daily_pay, s.daily_per_diem, s.statement_per_diem, s.trip_value,
	s.number_of_trips, s.loaded_miles, s.empty_miles, s.hours_worked`

// assemble is a statement as every read answers it (search, by number,
// export): its driver (nil when unknown) and its line items ([] when none).
func (row statementRow) assemble(d *domain.Driver, lines []reads.StatementLine) reads.Statement {
	s := row.statement()
	if d != nil {
		s.Driver = &domain.Driver{ID: d.ID, Name: d.Name, Type: d.Type, CompanyName: d.CompanyName, SubsidiaryID: d.SubsidiaryID, FleetName: d.FleetName}
	}
	s.LineItems = lines
	if s.LineItems == nil {
		s.LineItems = []reads.StatementLine{}
	}
	return s
}

func (row statementRow) statement() reads.Statement {
	m := func(d decimal.NullDecimal) *domain.Money {
		if !d.Valid {
			return nil
		}
		return &domain.Money{Amount: d.Decimal, Currency: row.Currency}
	}
	n := func(d decimal.NullDecimal) *decimal.Decimal {
		if !d.Valid {
			return nil
		}
		return &d.Decimal
	}
	return reads.Statement{
		ID: row.ID, Number: row.Number, Status: reads.StatementStatus(row.Status),
		StatementDate: domain.DateOf(row.StatementDate), PayPeriodID: row.PayPeriodID,
		PayPeriodTitle: row.PayPeriodTitle, DriverID: row.DriverID,
		Totals: reads.StatementTotals{
			GrossIncome: m(row.GrossIncome), NetIncome: m(row.NetIncome), LineHaul: m(row.LineHaul),
			Accessorials: m(row.Accessorials), Echecks: m(row.Echecks), ServiceFee: m(row.ServiceFee),
			DriverPayment: m(row.DriverPayment), Deductions: m(row.Deductions), Reimbursements: m(row.Reimbursements),
			Credits: m(row.Credits), Escrow: m(row.Escrow), Fuel: m(row.Fuel), Tolls: m(row.Tolls),
			Bonus: m(row.Bonus), Shortfall: m(row.Shortfall), DailyPay: m(row.DailyPay),
			DailyPerDiem: m(row.DailyPerDiem), StatementPerDiem: m(row.StatementPerDiem), TripValue: m(row.TripValue),
			NumberOfTrips: row.NumberOfTrips, LoadedMiles: domain.DecimalPtr(n(row.LoadedMiles)), EmptyMiles: domain.DecimalPtr(n(row.EmptyMiles)),
			HoursWorked: domain.DecimalPtr(n(row.HoursWorked)),
		},
	}
}

type lineRow struct {
	ID              uuid.UUID       `db:"id"`
	StatementID     uuid.UUID       `db:"statement_id"`
	Category        string          `db:"category"`
	Title           string          `db:"title"`
	PolicyName      *string         `db:"policy_name"`
	TripNumber      *string         `db:"trip_number"`
	LoadNumber      *string         `db:"load_number"`
	Amount          decimal.Decimal `db:"amount"`
	Currency        *int            `db:"currency"`
	TransactionType *string         `db:"transaction_type"`
}

type subLineRow struct {
	LineItemID  uuid.UUID       `db:"line_item_id"`
	Description string          `db:"description"`
	Quantity    string          `db:"quantity"`
	Rate        string          `db:"rate"`
	Amount      decimal.Decimal `db:"amount"`
	Currency    *int            `db:"currency"`
}

// assembleLines groups line items (with their sub-lines) by statement id,
// keeping the order of lines and subs (position order within each parent).
func assembleLines(lines []lineRow, subs []subLineRow) map[uuid.UUID][]reads.StatementLine {
	out := map[uuid.UUID][]reads.StatementLine{}
	byLine := map[uuid.UUID][]reads.SubLine{}
	for _, s := range subs {
		byLine[s.LineItemID] = append(byLine[s.LineItemID], reads.SubLine{
			Description: s.Description, Quantity: s.Quantity, Rate: s.Rate,
			Amount: domain.Money{Amount: s.Amount, Currency: s.Currency},
		})
	}
	for _, l := range lines {
		sl := byLine[l.ID]
		if sl == nil {
			sl = []reads.SubLine{}
		}
		var tt *reads.TransactionType
		if l.TransactionType != nil {
			t := reads.TransactionType(*l.TransactionType)
			tt = &t
		}
		out[l.StatementID] = append(out[l.StatementID], reads.StatementLine{
			Category: l.Category, Title: l.Title, PolicyName: l.PolicyName, TripNumber: l.TripNumber,
			LoadNumber: l.LoadNumber, Amount: domain.Money{Amount: l.Amount, Currency: l.Currency},
			TransactionType: tt, SubLines: sl,
		})
	}
	return out
}
