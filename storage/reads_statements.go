package storage

import (
	"context"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/haulgraph/haulgraph/domain"
)

// visibleStatements is spec 3.2's rule in SQL: in-flight, Open and Draft
// statements never leave the database. It matches the partial indexes of 0001.
const visibleStatements = "s.status IN ('Processed', 'Failed')"

var statementKeys = keyset{cols: []string{"s.statement_date", "s.number"}, types: []string{"date", "integer"}}

type statementRow struct {
	ID               uuid.UUID           `bun:"id"`
	Number           int32               `bun:"number"`
	Status           string              `bun:"status"`
	StatementDate    time.Time           `bun:"statement_date"`
	PayPeriodID      string              `bun:"pay_period_id"`
	PayPeriodTitle   string              `bun:"pay_period_title"`
	DriverID         uuid.UUID           `bun:"driver_id"`
	Currency         *int                `bun:"currency"`
	GrossIncome      decimal.NullDecimal `bun:"gross_income"`
	NetIncome        decimal.NullDecimal `bun:"net_income"`
	LineHaul         decimal.NullDecimal `bun:"line_haul"`
	Accessorials     decimal.NullDecimal `bun:"accessorials"`
	Echecks          decimal.NullDecimal `bun:"echecks"`
	ServiceFee       decimal.NullDecimal `bun:"service_fee"`
	DriverPayment    decimal.NullDecimal `bun:"driver_payment"`
	Deductions       decimal.NullDecimal `bun:"deductions"`
	Reimbursements   decimal.NullDecimal `bun:"reimbursements"`
	Credits          decimal.NullDecimal `bun:"credits"`
	Escrow           decimal.NullDecimal `bun:"escrow"`
	Fuel             decimal.NullDecimal `bun:"fuel"`
	Tolls            decimal.NullDecimal `bun:"tolls"`
	Bonus            decimal.NullDecimal `bun:"bonus"`
	Shortfall        decimal.NullDecimal `bun:"shortfall"`
	DailyPay         decimal.NullDecimal `bun:"daily_pay"`
	DailyPerDiem     decimal.NullDecimal `bun:"daily_per_diem"`
	StatementPerDiem decimal.NullDecimal `bun:"statement_per_diem"`
	TripValue        decimal.NullDecimal `bun:"trip_value"`
	NumberOfTrips    *int                `bun:"number_of_trips"`
	LoadedMiles      decimal.NullDecimal `bun:"loaded_miles"`
	EmptyMiles       decimal.NullDecimal `bun:"empty_miles"`
	HoursWorked      decimal.NullDecimal `bun:"hours_worked"`
}

const statementCols = `s.id, s.number, s.status, s.statement_date, s.pay_period_id, s.pay_period_title,
	s.driver_id, s.currency, s.gross_income, s.net_income, s.line_haul, s.accessorials, s.echecks,
	s.service_fee, s.driver_payment, s.deductions, s.reimbursements, s.credits, s.escrow, s.fuel,
	s.tolls, s.bonus, s.shortfall, s.daily_pay, s.daily_per_diem, s.statement_per_diem, s.trip_value,
	s.number_of_trips, s.loaded_miles, s.empty_miles, s.hours_worked`

// SearchStatements answers spec 4.2 with Driver, Totals and LineItems (with
// SubLines) filled: five queries whatever the page size.
func (r *Reads) SearchStatements(ctx context.Context, tenant uuid.UUID, q domain.StatementQuery) (domain.Page[domain.Statement], error) {
	var page domain.Page[domain.Statement]
	win, err := statementKeys.window(q.Window)
	if err != nil {
		return page, err
	}
	from := "FROM settlement_statements s WHERE s.tenant_id = ? AND " + visibleStatements +
		" AND s.statement_date BETWEEN ?::date AND ?::date"
	args := []any{tenant, q.From.String(), q.To.String()}
	if q.DriverType != nil {
		from += " AND s.driver_type = ?"
		args = append(args, string(*q.DriverType))
	}
	if q.DriverID != nil {
		from += " AND s.driver_id = ?"
		args = append(args, *q.DriverID)
	}
	err = r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		if page.Total, err = count(ctx, tx, from, args...); err != nil {
			return err
		}
		var rows []statementRow
		query := "SELECT " + statementCols + " " + from + " " + win.where + " " + win.tail
		if err := selectRows(ctx, tx, &rows, query, append(append([]any{}, args...), win.args...)...); err != nil {
			return err
		}
		rows, page.HasMore = trim(rows, win.limit)
		page.Items, err = r.fillStatements(ctx, tx, tenant, rows)
		return err
	})
	if err != nil {
		return domain.Page[domain.Statement]{}, err
	}
	for _, s := range page.Items {
		page.Cursors = append(page.Cursors, encodeCursor(s.StatementDate.String(), strconv.Itoa(int(s.Number))))
	}
	return page, nil
}

// StatementByNumber answers spec 4.3: unknown and in-flight are both not found.
func (r *Reads) StatementByNumber(ctx context.Context, tenant uuid.UUID, number int32) (*domain.Statement, error) {
	var out []domain.Statement
	err := r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		var rows []statementRow
		if err := selectRows(ctx, tx, &rows, "SELECT "+statementCols+" FROM settlement_statements s WHERE s.tenant_id = ? AND s.number = ? AND "+visibleStatements, tenant, number); err != nil {
			return err
		}
		var err error
		out, err = r.fillStatements(ctx, tx, tenant, rows)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, domain.NotFound("settlement statement %d not found", number)
	}
	return &out[0], nil
}

// fillStatements converts rows and attaches drivers, line items and sub-lines
// with one query each.
func (r *Reads) fillStatements(ctx context.Context, tx bun.Tx, tenant uuid.UUID, rows []statementRow) ([]domain.Statement, error) {
	out := make([]domain.Statement, len(rows))
	if len(rows) == 0 {
		return out, nil
	}
	driverIDs := ids(rows, func(r statementRow) *uuid.UUID { return &r.DriverID })
	drivers, err := driversByIDs(ctx, tx, tenant, driverIDs)
	if err != nil {
		return nil, err
	}
	stmtIDs := make([]uuid.UUID, len(rows))
	for i, row := range rows {
		stmtIDs[i] = row.ID
	}
	lines, err := statementLines(ctx, tx, tenant, stmtIDs)
	if err != nil {
		return nil, err
	}
	for i, row := range rows {
		var d *domain.Driver
		if found, ok := drivers[row.DriverID]; ok {
			d = &found
		}
		out[i] = row.assemble(d, lines[row.ID])
	}
	return out, nil
}

// assemble is a statement as every read answers it (search, by number,
// export): its driver (nil when unknown) and its line items ([] when none).
func (row statementRow) assemble(d *domain.Driver, lines []domain.StatementLine) domain.Statement {
	s := row.statement()
	if d != nil {
		s.Driver = &domain.StatementDriver{ID: d.ID, Name: d.Name, Type: d.Type, CompanyName: d.CompanyName, SubsidiaryID: d.SubsidiaryID, FleetName: d.FleetName}
	}
	s.LineItems = lines
	if s.LineItems == nil {
		s.LineItems = []domain.StatementLine{}
	}
	return s
}

func (row statementRow) statement() domain.Statement {
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
	return domain.Statement{
		ID: row.ID, Number: row.Number, Status: domain.StatementStatus(row.Status),
		StatementDate: domain.DateOf(row.StatementDate), PayPeriodID: row.PayPeriodID,
		PayPeriodTitle: row.PayPeriodTitle, DriverID: row.DriverID,
		Totals: domain.StatementTotals{
			GrossIncome: m(row.GrossIncome), NetIncome: m(row.NetIncome), LineHaul: m(row.LineHaul),
			Accessorials: m(row.Accessorials), Echecks: m(row.Echecks), ServiceFee: m(row.ServiceFee),
			DriverPayment: m(row.DriverPayment), Deductions: m(row.Deductions), Reimbursements: m(row.Reimbursements),
			Credits: m(row.Credits), Escrow: m(row.Escrow), Fuel: m(row.Fuel), Tolls: m(row.Tolls),
			Bonus: m(row.Bonus), Shortfall: m(row.Shortfall), DailyPay: m(row.DailyPay),
			DailyPerDiem: m(row.DailyPerDiem), StatementPerDiem: m(row.StatementPerDiem), TripValue: m(row.TripValue),
			NumberOfTrips: row.NumberOfTrips, LoadedMiles: n(row.LoadedMiles), EmptyMiles: n(row.EmptyMiles),
			HoursWorked: n(row.HoursWorked),
		},
	}
}

type lineRow struct {
	ID              uuid.UUID       `bun:"id"`
	StatementID     uuid.UUID       `bun:"statement_id"`
	Category        string          `bun:"category"`
	Title           string          `bun:"title"`
	PolicyName      *string         `bun:"policy_name"`
	TripNumber      *string         `bun:"trip_number"`
	LoadNumber      *string         `bun:"load_number"`
	Amount          decimal.Decimal `bun:"amount"`
	Currency        *int            `bun:"currency"`
	TransactionType *string         `bun:"transaction_type"`
}

type subLineRow struct {
	LineItemID  uuid.UUID       `bun:"line_item_id"`
	Description string          `bun:"description"`
	Quantity    string          `bun:"quantity"`
	Rate        string          `bun:"rate"`
	Amount      decimal.Decimal `bun:"amount"`
	Currency    *int            `bun:"currency"`
}

// statementLines returns the line items (with sub-lines) of the statements,
// keyed by statement id, in position order: two queries.
func statementLines(ctx context.Context, tx bun.Tx, tenant uuid.UUID, stmtIDs []uuid.UUID) (map[uuid.UUID][]domain.StatementLine, error) {
	var lines []lineRow
	if err := selectRows(ctx, tx, &lines, `SELECT id, statement_id, category, title, policy_name, trip_number,
		load_number, amount, currency, transaction_type FROM statement_line_items
		WHERE tenant_id = ? AND statement_id = ANY(?) ORDER BY statement_id, position`, tenant, pgdialect.Array(stmtIDs)); err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return map[uuid.UUID][]domain.StatementLine{}, nil
	}
	lineIDs := make([]uuid.UUID, len(lines))
	for i, l := range lines {
		lineIDs[i] = l.ID
	}
	var subs []subLineRow
	if err := selectRows(ctx, tx, &subs, `SELECT line_item_id, description, quantity, rate, amount, currency
		FROM statement_sub_lines WHERE tenant_id = ? AND line_item_id = ANY(?) ORDER BY line_item_id, position`,
		tenant, pgdialect.Array(lineIDs)); err != nil {
		return nil, err
	}
	return assembleLines(lines, subs), nil
}

// assembleLines groups line items (with their sub-lines) by statement id,
// keeping the order of lines and subs (position order within each parent).
func assembleLines(lines []lineRow, subs []subLineRow) map[uuid.UUID][]domain.StatementLine {
	out := map[uuid.UUID][]domain.StatementLine{}
	byLine := map[uuid.UUID][]domain.SubLine{}
	for _, s := range subs {
		byLine[s.LineItemID] = append(byLine[s.LineItemID], domain.SubLine{
			Description: s.Description, Quantity: s.Quantity, Rate: s.Rate,
			Amount: domain.Money{Amount: s.Amount, Currency: s.Currency},
		})
	}
	for _, l := range lines {
		sl := byLine[l.ID]
		if sl == nil {
			sl = []domain.SubLine{}
		}
		var tt *domain.TransactionType
		if l.TransactionType != nil {
			t := domain.TransactionType(*l.TransactionType)
			tt = &t
		}
		out[l.StatementID] = append(out[l.StatementID], domain.StatementLine{
			Category: l.Category, Title: l.Title, PolicyName: l.PolicyName, TripNumber: l.TripNumber,
			LoadNumber: l.LoadNumber, Amount: domain.Money{Amount: l.Amount, Currency: l.Currency},
			TransactionType: tt, SubLines: sl,
		})
	}
	return out
}
