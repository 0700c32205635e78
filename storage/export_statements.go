package storage

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// ExportBatch is how many statements the export reads per keyset step: the
// memory of one export is one batch (with its lines), whatever the range.
// The first step reads exportFirstBatch only, so the first bytes leave soon.
const (
	ExportBatch      = 500
	exportFirstBatch = 50
)

// ExportApplicationName marks an export's connection in pg_stat_activity
// while it runs (SET LOCAL: it reverts when the transaction ends).
const ExportApplicationName = "haulgraph statement export"

// ExportSlotLock is the first of the advisory lock classes that count the
// running exports of a tenant (class ExportSlotLock+i, key hashtext(tenant)),
// always on the primary: transaction-scoped, so a crashed instance or a
// client gone frees its slot.
const ExportSlotLock = 7340230

// beginSlot opens the primary transaction that holds an export's slot while
// a replica streams it: read committed, so it holds no snapshot back.
const beginSlot = "BEGIN READ ONLY"

var _ reads.StatementExportStore = (*Reads)(nil)

// StreamStatements implements reads.StatementExportStore with pgx directly
// (real bind parameters, one statement text per filter combination): one
// read-only REPEATABLE READ transaction, so the whole export is one
// snapshot, read in keyset steps of ExportBatch statements on
// (statement_date, number), the order and index of search.
func (r *Reads) StreamStatements(ctx context.Context, tenant uuid.UUID, q reads.StatementExportQuery, slots int, emit func(*reads.Statement) error) error {
	// A client gone cancels ctx; pgx then sends the server a cancel request
	// for the running statement and drops the connection (pgconn asyncClose),
	// which ends the transaction: no snapshot or slot outlives the request.
	if r.DB.reader(ctx) == r.DB {
		return r.DB.inTenantSnapshot(ctx, tenant, func(ctx context.Context, tx *Tx) error {
			tx.exec("SELECT set_config('application_name', $1, true)", ExportApplicationName)
			if err := takeExportSlot(ctx, tx, tenant, slots); err != nil {
				return err
			}
			return streamStatements(ctx, tx, tenant, q, emit)
		})
	}
	// Read on a replica: a slot taken there would count per node (two
	// exports per tenant on each), so it is taken on the primary, in a
	// transaction held while the replica streams.
	return r.DB.inTx(ctx, tenant, beginSlot, func(ctx context.Context, slot *Tx) error {
		if err := takeExportSlot(ctx, slot, tenant, slots); err != nil {
			return err
		}
		return r.DB.inTenantSnapshot(ctx, tenant, func(ctx context.Context, tx *Tx) error {
			tx.exec("SELECT set_config('application_name', $1, true)", ExportApplicationName)
			return streamStatements(ctx, tx, tenant, q, emit)
		})
	})
}

// streamStatements reads the export in keyset steps inside tx.
func streamStatements(ctx context.Context, tx *Tx, tenant uuid.UUID, q reads.StatementExportQuery, emit func(*reads.Statement) error) error {
	query, args := exportStatementsQuery(tenant, q)
	// The first step starts before the first day: every row of the range
	// sorts after (From - 1 day, MinInt32).
	lastDate, lastNumber := q.From.AddDate(0, 0, -1), int32(math.MinInt32)
	n := len(args)
	args = append(args, lastDate, lastNumber, exportFirstBatch)
	for {
		args[n], args[n+1] = lastDate, lastNumber
		limit := args[n+2].(int)
		batch, err := readStatementBatch(ctx, tx, tenant, query, args)
		if err != nil {
			return err
		}
		for i := range batch {
			if err := emit(&batch[i]); err != nil {
				return err
			}
		}
		if len(batch) < limit {
			return nil
		}
		last := batch[len(batch)-1]
		lastDate, lastNumber = last.StatementDate.Time, last.Number
		args[n+2] = ExportBatch
	}
}

// takeExportSlot holds one of the tenant's export slots until the
// transaction ends, or answers TooManyExports.
func takeExportSlot(ctx context.Context, tx *Tx, tenant uuid.UUID, slots int) error {
	for i := range slots {
		var ok bool
		if _, err := tx.queryRow(ctx, "SELECT pg_try_advisory_xact_lock($1, hashtext($2))", []any{&ok}, ExportSlotLock+i, tenant.String()); err != nil {
			return err
		}
		if ok {
			return nil
		}
	}
	return reads.TooManyExports
}

// exportStatementsQuery is search's selection (visibleStatements, the date
// range, the driver filters) with each statement's driver joined; the last
// three parameters are the keyset position and the step's size.
func exportStatementsQuery(tenant uuid.UUID, q reads.StatementExportQuery) (string, []any) {
	args := []any{tenant, q.From.Time, q.To.Time}
	var where strings.Builder
	if q.DriverType != nil {
		args = append(args, string(*q.DriverType))
		fmt.Fprintf(&where, " AND s.driver_type = $%d", len(args))
	}
	if q.DriverID != nil {
		args = append(args, *q.DriverID)
		fmt.Fprintf(&where, " AND s.driver_id = $%d", len(args))
	}
	query := fmt.Sprintf(`SELECT %s, d.id, d.name, d.type, d.company_name, d.subsidiary_id, f.name
		FROM settlement_statements s
		LEFT JOIN drivers d ON d.id = s.driver_id AND d.tenant_id = s.tenant_id
		LEFT JOIN fleets f ON f.id = d.fleet_id AND f.tenant_id = d.tenant_id
		WHERE s.tenant_id = $1 AND %s AND s.statement_date BETWEEN $2::date AND $3::date%s
		AND (s.statement_date, s.number) > ($%d::date, $%d::integer)
		ORDER BY s.statement_date, s.number LIMIT $%d`,
		statementCols, visibleStatements, where.String(), len(args)+1, len(args)+2, len(args)+3)
	return query, args
}

// readStatementBatch and exportLines read by position for the reason
// fillStatements gives (the same rows, 500 statements a step).
//
// readStatementBatch reads one keyset step and its line items and sub-lines
// (three queries) and assembles them as search does.
func readStatementBatch(ctx context.Context, tx *Tx, tenant uuid.UUID, query string, args []any) ([]reads.Statement, error) {
	type stmt struct {
		row    statementRow
		driver *domain.Driver
	}
	var got []stmt
	tx.query(query, func(rows pgx.Rows) error {
		var s stmt
		var d driverCols
		if err := rows.Scan(append(s.row.scanTargets(), d.targets()...)...); err != nil {
			return err
		}
		s.driver = d.driver()
		got = append(got, s)
		return nil
	}, args...)
	if err := tx.flush(ctx); err != nil {
		return nil, err
	}
	if len(got) == 0 {
		return nil, nil
	}
	ids := make([]string, len(got))
	for i, s := range got {
		ids[i] = s.row.ID.String()
	}
	lines, err := exportLines(ctx, tx, tenant, ids)
	if err != nil {
		return nil, err
	}
	out := make([]reads.Statement, len(got))
	for i, s := range got {
		out[i] = s.row.assemble(s.driver, lines[s.row.ID])
	}
	return out, nil
}

// exportLines is statementLines over pgx.
func exportLines(ctx context.Context, tx *Tx, tenant uuid.UUID, stmtIDs []string) (map[uuid.UUID][]reads.StatementLine, error) {
	var lines []lineRow
	var lineIDs []string
	tx.query(`SELECT id, statement_id, category, title, policy_name, trip_number,
		load_number, amount, currency, transaction_type FROM statement_line_items
		WHERE tenant_id = $1 AND statement_id = ANY($2::uuid[]) ORDER BY statement_id, position`, func(rows pgx.Rows) error {
		var l lineRow
		if err := rows.Scan(&l.ID, &l.StatementID, &l.Category, &l.Title, &l.PolicyName, &l.TripNumber,
			&l.LoadNumber, &l.Amount, &l.Currency, &l.TransactionType); err != nil {
			return err
		}
		lines = append(lines, l)
		lineIDs = append(lineIDs, l.ID.String())
		return nil
	}, tenant, stmtIDs)
	if err := tx.flush(ctx); err != nil {
		return nil, err
	}
	if len(lines) == 0 {
		return nil, nil
	}
	var subs []subLineRow
	tx.query(`SELECT line_item_id, description, quantity, rate, amount, currency
		FROM statement_sub_lines WHERE tenant_id = $1 AND line_item_id = ANY($2::uuid[]) ORDER BY line_item_id, position`,
		func(rows pgx.Rows) error {
			var s subLineRow
			err := rows.Scan(&s.LineItemID, &s.Description, &s.Quantity, &s.Rate, &s.Amount, &s.Currency)
			subs = append(subs, s)
			return err
		}, tenant, lineIDs)
	if err := tx.flush(ctx); err != nil {
		return nil, err
	}
	return assembleLines(lines, subs), nil
}

// scanTargets are the fields of statementRow in statementCols order.
func (row *statementRow) scanTargets() []any {
	return []any{&row.ID, &row.Number, &row.Status, &row.StatementDate, &row.PayPeriodID, &row.PayPeriodTitle,
		&row.DriverID, &row.Currency, &row.GrossIncome, &row.NetIncome, &row.LineHaul, &row.Accessorials, &row.Echecks,
		&row.ServiceFee, &row.DriverPayment, &row.Deductions, &row.Reimbursements, &row.Credits, &row.Escrow, &row.Fuel,
		&row.Tolls, &row.Bonus, &row.Shortfall, &row.DailyPay, &row.DailyPerDiem, &row.StatementPerDiem, &row.TripValue,
		&row.NumberOfTrips, &row.LoadedMiles, &row.EmptyMiles, &row.HoursWorked}
}

// driverCols are the joined driver's columns (all NULL when it is missing).
type driverCols struct {
	id           *uuid.UUID
	name, typ    *string
	company      *string
	subsidiaryID *uuid.UUID
	fleet        *string
}

func (d *driverCols) targets() []any {
	return []any{&d.id, &d.name, &d.typ, &d.company, &d.subsidiaryID, &d.fleet}
}

func (d *driverCols) driver() *domain.Driver {
	if d.id == nil {
		return nil
	}
	out := &domain.Driver{ID: *d.id, CompanyName: d.company, SubsidiaryID: d.subsidiaryID, FleetName: d.fleet}
	if d.name != nil {
		out.Name = *d.name
	}
	if d.typ != nil {
		out.Type = domain.DriverType(*d.typ)
	}
	return out
}
