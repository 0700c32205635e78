package storage

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// visibleStatements is docs/api-contract.md §3.2's rule in SQL: in-flight, Open and Draft
// statements never leave the database. It matches the partial indexes of 0001
// and the counts of 0018 (TestSQLVocabulariesAreTheGoOnes).
var visibleStatements = "s.status IN (" + sqlLiterals(reads.VisibleStatementStatuses) + ")"

var statementKeys = keyset{cols: []string{"s.statement_date", "s.number"}, types: []string{"date", "integer"}}

// statementBase are the columns every statement read needs; statementTotals
// the 23 sums, read only when asked for.
const (
	statementBase   = "s.id, s.number, s.status, s.statement_date, s.pay_period_id, s.pay_period_title, s.driver_id, s.currency"
	statementTotals = `s.gross_income, s.net_income, s.line_haul, s.accessorials, s.echecks,
	s.service_fee, s.driver_payment, s.deductions, s.reimbursements, s.credits, s.escrow, s.fuel,
	s.tolls, s.bonus, s.shortfall, s.daily_pay, s.daily_per_diem, s.statement_per_diem, s.trip_value,
	s.number_of_trips, s.loaded_miles, s.empty_miles, s.hours_worked`
)

func statementColumns(skip reads.StatementSkip) string {
	if skip.Totals {
		return statementBase
	}
	return statementBase + ", " + statementTotals
}

// SearchStatements answers docs/api-contract.md §4.2 without what q.Skip names, in at most
// two round trips: the tenant context, the count and the page; then drivers,
// line items and sub-lines of the whole page together. The statement texts
// take every value as a bind parameter (LIMIT and OFFSET included), so there
// are a handful of texts, each prepared once per connection.
func (r *Reads) SearchStatements(ctx context.Context, tenant uuid.UUID, q reads.StatementQuery) (domain.Page[reads.Statement], error) {
	var page domain.Page[reads.Statement]
	text, err := StatementSearchSQL(tenant, q)
	if err != nil {
		return page, err
	}
	var rows []reads.Statement
	if err := r.DB.readTenant(ctx, tenant, func(_ context.Context, t *Tx) error {
		if text.Count != "" {
			t.query(text.Count, func(rows pgx.Rows) error { return rows.Scan(&page.Total) }, text.CountArgs...)
		}
		t.query(text.Page, func(r pgx.Rows) error {
			s, err := scanStatement(r, !q.Skip.Totals)
			rows = append(rows, s)
			return err
		}, text.PageArgs...)
		return nil
	}); err != nil {
		return domain.Page[reads.Statement]{}, err
	}
	rows, page.HasMore = trim(rows, text.Limit)
	if err := r.fillStatements(ctx, tenant, rows, q.Skip); err != nil {
		return domain.Page[reads.Statement]{}, err
	}
	page.Items = rows
	for _, s := range page.Items {
		page.Cursors = append(page.Cursors, encodeCursor(s.StatementDate.String(), strconv.Itoa(int(s.Number))))
	}
	return page, nil
}

// StatementSearchText is the SQL SearchStatements sends for one search: the
// count (empty when the query skips the total) and the page, which asks for
// Limit+1 rows (the extra one says a next page exists). The page's
// relations follow with StatementDriversSQL, StatementLinesSQL and
// StatementSubLinesSQL. bench/reads' bare baseline sends the same texts.
type StatementSearchText struct {
	Count     string
	CountArgs []any
	Page      string
	PageArgs  []any
	Limit     int
}

// StatementSearchSQL builds the statements of the search q of tenant.
func StatementSearchSQL(tenant uuid.UUID, q reads.StatementQuery) (StatementSearchText, error) {
	var text StatementSearchText
	from := "FROM settlement_statements s WHERE s.tenant_id = $1 AND " + visibleStatements +
		" AND s.statement_date BETWEEN $2 AND $3"
	args := []any{tenant, q.From.Time, q.To.Time}
	if q.DriverType != nil {
		args = append(args, string(*q.DriverType))
		from += " AND s.driver_type = $" + strconv.Itoa(len(args))
	}
	if q.DriverID != nil {
		args = append(args, *q.DriverID)
		from += " AND s.driver_id = $" + strconv.Itoa(len(args))
	}
	limit := q.Window.Limit
	if limit <= 0 || limit > maxUnpaged {
		limit = maxUnpaged
	}
	pageSQL := "SELECT " + statementColumns(q.Skip) + " " + from
	pageArgs := append([]any{}, args...)
	if q.Window.After != "" {
		parts, err := decodeCursor(q.Window.After, statementKeys.types)
		if err != nil {
			return text, err
		}
		date, _ := time.Parse(time.DateOnly, parts[0])
		number, _ := strconv.ParseInt(parts[1], 10, 32)
		n := len(pageArgs)
		pageSQL += fmt.Sprintf(" AND (s.statement_date, s.number) > ($%d, $%d) ORDER BY s.statement_date, s.number LIMIT $%d", n+1, n+2, n+3)
		pageArgs = append(pageArgs, date, int32(number), limit+1)
	} else {
		n := len(pageArgs)
		pageSQL += fmt.Sprintf(" ORDER BY s.statement_date, s.number LIMIT $%d OFFSET $%d", n+1, n+2)
		pageArgs = append(pageArgs, limit+1, max(q.Window.Offset, 0))
	}
	if !q.Skip.Total {
		text.Count, text.CountArgs = "SELECT count(*) "+from, args
		if q.DriverID == nil { // one driver's statements are few: counted as they are
			text.Count, text.CountArgs = statementDayCountSQL, []any{tenant, q.From.Time, q.To.Time, nil}
			if q.DriverType != nil {
				text.CountArgs[3] = string(*q.DriverType)
			}
		}
	}
	text.Page, text.PageArgs, text.Limit = pageSQL, pageArgs, limit
	return text, nil
}

// statementDayCountSQL is the search's Total from 0018's per-day counts of
// visible statements, for every driver type or the one in $4.
const statementDayCountSQL = `SELECT coalesce(sum(c.n), 0)::bigint FROM statement_day_counts c
	WHERE c.tenant_id = $1 AND c.statement_date BETWEEN $2 AND $3 AND ($4::text IS NULL OR c.driver_type = $4)`

// statementByNumber is docs/api-contract.md §4.3's statement text.
var statementByNumber = "SELECT " + statementColumns(reads.StatementSkip{}) +
	" FROM settlement_statements s WHERE s.tenant_id = $1 AND s.number = $2 AND " + visibleStatements

// StatementByNumber answers docs/api-contract.md §4.3: unknown and in-flight are both not found.
func (r *Reads) StatementByNumber(ctx context.Context, tenant uuid.UUID, number int32) (*reads.Statement, error) {
	var rows []reads.Statement
	if err := r.DB.readTenant(ctx, tenant, func(_ context.Context, t *Tx) error {
		t.query(statementByNumber, func(r pgx.Rows) error {
			s, err := scanStatement(r, true)
			rows = append(rows, s)
			return err
		}, tenant, number)
		return nil
	}); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, domain.NotFound("settlement statement %d not found", number)
	}
	if err := r.fillStatements(ctx, tenant, rows, reads.StatementSkip{}); err != nil {
		return nil, err
	}
	return &rows[0], nil
}

// The relations of a page of statements, by the tenant ($1) and the page's
// statement ids ($2): one statement text each, sent together in one round
// trip.
const (
	StatementDriversSQL = `SELECT d.id, d.name, d.type, d.company_name, d.subsidiary_id, f.name
		FROM drivers d LEFT JOIN fleets f ON f.id = d.fleet_id AND f.tenant_id = d.tenant_id
		WHERE d.tenant_id = $1 AND d.id = ANY($2)`
	StatementLinesSQL = `SELECT li.id, li.statement_id, li.category, li.title, li.policy_name, li.trip_number,
		li.load_number, li.amount, li.currency, li.transaction_type FROM statement_line_items li
		WHERE li.tenant_id = $1 AND li.statement_id = ANY($2) ORDER BY li.statement_id, li.position`
	StatementSubLinesSQL = `SELECT sl.line_item_id, sl.description, sl.quantity, sl.rate, sl.amount, sl.currency
		FROM statement_line_items li JOIN statement_sub_lines sl ON sl.line_item_id = li.id AND sl.tenant_id = li.tenant_id
		WHERE li.tenant_id = $1 AND li.statement_id = ANY($2) ORDER BY sl.line_item_id, sl.position`
)

// Position on purpose (rows_dialect_test's positional): a page's hundreds of
// line and sub-line rows are the hot path, and read by name (lineRow,
// subLineRow with pgx.RowToStructByName) BenchmarkSearchStatements100 cost
// 1.34 MB per page against 1.20 MB (+12 %) and ~0.7 ms more client CPU per
// page (process CPU, three interleaved pairs of 300 pages).
//
// fillStatements attaches the relations skip does not name to rows in one
// round trip (none when it names them all).
func (r *Reads) fillStatements(ctx context.Context, tenant uuid.UUID, rows []reads.Statement, skip reads.StatementSkip) error {
	p := struct{ Driver, LineItems, SubLines bool }{!skip.Driver, !skip.LineItems, !skip.LineItems && !skip.SubLines}
	for i := range rows {
		rows[i].LineItems = []reads.StatementLine{}
	}
	if len(rows) == 0 || !(p.Driver || p.LineItems || p.SubLines) {
		return nil
	}
	stmtIDs := make([]uuid.UUID, len(rows))
	for i, row := range rows {
		stmtIDs[i] = row.ID
	}
	drivers := map[uuid.UUID]*domain.Driver{}
	type line struct {
		id, statement uuid.UUID
		reads.StatementLine
	}
	var lines []line
	subLines := map[uuid.UUID][]reads.SubLine{}
	err := r.DB.readTenant(ctx, tenant, func(_ context.Context, t *Tx) error {
		if p.Driver {
			driverIDs := ids(rows, func(s reads.Statement) *uuid.UUID { return &s.DriverID })
			t.query(StatementDriversSQL, func(r pgx.Rows) error {
				d := &domain.Driver{}
				if err := r.Scan(&d.ID, &d.Name, &d.Type, &d.CompanyName, &d.SubsidiaryID, &d.FleetName); err != nil {
					return err
				}
				drivers[d.ID] = d
				return nil
			}, tenant, driverIDs)
		}
		if p.LineItems || p.SubLines {
			t.query(StatementLinesSQL, func(r pgx.Rows) error {
				var l line
				var amount numeric
				if err := r.Scan(&l.id, &l.statement, &l.Category, &l.Title, &l.PolicyName, &l.TripNumber,
					&l.LoadNumber, &amount, &l.Amount.Currency, &l.TransactionType); err != nil {
					return err
				}
				l.Amount.Amount = amount.dec()
				l.SubLines = []reads.SubLine{}
				lines = append(lines, l)
				return nil
			}, tenant, stmtIDs)
		}
		if p.SubLines {
			t.query(StatementSubLinesSQL, func(r pgx.Rows) error {
				var lineID uuid.UUID
				var s reads.SubLine
				var amount numeric
				if err := r.Scan(&lineID, &s.Description, &s.Quantity, &s.Rate, &amount, &s.Amount.Currency); err != nil {
					return err
				}
				s.Amount.Amount = amount.dec()
				subLines[lineID] = append(subLines[lineID], s)
				return nil
			}, tenant, stmtIDs)
		}
		return nil
	})
	if err != nil {
		return err
	}
	byStatement := make(map[uuid.UUID][]reads.StatementLine, len(rows))
	for _, l := range lines {
		if sl := subLines[l.id]; sl != nil {
			l.SubLines = sl
		}
		byStatement[l.statement] = append(byStatement[l.statement], l.StatementLine)
	}
	for i := range rows {
		rows[i].Driver = drivers[rows[i].DriverID]
		if ls := byStatement[rows[i].ID]; ls != nil {
			rows[i].LineItems = ls
		}
	}
	return nil
}

// scanStatement reads one row of statementColumns (with the totals when
// totals is set), by position as fillStatements reads its rows.
func scanStatement(r pgx.Rows, totals bool) (reads.Statement, error) {
	var s reads.Statement
	var date time.Time
	var cur *int
	dest := []any{&s.ID, &s.Number, &s.Status, &date, &s.PayPeriodID, &s.PayPeriodTitle, &s.DriverID, &cur}
	var sums [19]numeric
	var loaded, empty, hours numeric
	if totals {
		for i := range sums {
			dest = append(dest, &sums[i])
		}
		dest = append(dest, &s.Totals.NumberOfTrips, &loaded, &empty, &hours)
	}
	if err := r.Scan(dest...); err != nil {
		return s, err
	}
	s.StatementDate = domain.DateOf(date)
	if totals {
		t := &s.Totals
		for i, m := range []**domain.Money{&t.GrossIncome, &t.NetIncome, &t.LineHaul, &t.Accessorials, &t.Echecks,
			&t.ServiceFee, &t.DriverPayment, &t.Deductions, &t.Reimbursements, &t.Credits, &t.Escrow, &t.Fuel,
			&t.Tolls, &t.Bonus, &t.Shortfall, &t.DailyPay, &t.DailyPerDiem, &t.StatementPerDiem, &t.TripValue} {
			if sums[i].valid {
				*m = &domain.Money{Amount: sums[i].dec(), Currency: cur}
			}
		}
		t.LoadedMiles, t.EmptyMiles, t.HoursWorked = domain.DecimalPtr(loaded.decPtr()), domain.DecimalPtr(empty.decPtr()), domain.DecimalPtr(hours.decPtr())
	}
	return s, nil
}
