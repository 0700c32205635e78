package main

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/storage"
)

// bareStatement is a page row as the bare baseline renders it: the columns
// as pgx scans them (numerics as pgtype.Numeric, which encodes as a JSON
// number), its driver and its line items with their sub-lines.
type bareStatement struct {
	ID             uuid.UUID          `json:"-"`
	Number         int32              `json:"Number"`
	Status         string             `json:"Status"`
	StatementDate  time.Time          `json:"StatementDate"`
	PayPeriodID    string             `json:"PayPeriodId"`
	PayPeriodTitle string             `json:"PayPeriodTitle"`
	DriverID       uuid.UUID          `json:"-"`
	Currency       *int32             `json:"Currency"`
	Totals         [19]pgtype.Numeric `json:"Totals"`
	NumberOfTrips  *int32             `json:"NumberOfTrips"`
	Miles          [3]pgtype.Numeric  `json:"LoadedEmptyHours"`
	Driver         *bareDriver        `json:"Driver"`
	LineItems      []*bareLine        `json:"LineItems"`
}

type bareDriver struct {
	ID           uuid.UUID  `json:"Id"`
	Name         string     `json:"Name"`
	Type         string     `json:"Type"`
	CompanyName  *string    `json:"CompanyName"`
	SubsidiaryID *uuid.UUID `json:"SubsidiaryId"`
	FleetName    *string    `json:"FleetName"`
}

type bareLine struct {
	id              uuid.UUID
	statement       uuid.UUID
	Category        string         `json:"Category"`
	Title           string         `json:"Title"`
	PolicyName      *string        `json:"PolicyName"`
	TripNumber      *string        `json:"TripNumber"`
	LoadNumber      *string        `json:"LoadNumber"`
	Amount          pgtype.Numeric `json:"Amount"`
	Currency        *int32         `json:"Currency"`
	TransactionType *string        `json:"TransactionType"`
	SubLines        []bareSubLine  `json:"SubLines"`
}

type bareSubLine struct {
	Description string         `json:"Description"`
	Quantity    string         `json:"Quantity"`
	Rate        string         `json:"Rate"`
	Amount      pgtype.Numeric `json:"Amount"`
	Currency    *int32         `json:"Currency"`
}

// statements is the bare statement page: the REST search's own SQL
// (storage.StatementSearchSQL and the relation texts), sent the same way
// (count and page in one batch, then the relations in one), without auth,
// rate limits, tenant context or domain layer. ?from=&to= are dates; the
// page is the first 100 statements, as the REST search the bench sends.
func (h *bareHandler) statements(w http.ResponseWriter, r *http.Request) {
	from, err1 := time.Parse(time.DateOnly, r.URL.Query().Get("from"))
	to, err2 := time.Parse(time.DateOnly, r.URL.Query().Get("to"))
	if err1 != nil || err2 != nil {
		http.Error(w, "from and to must be dates (yyyy-mm-dd)", http.StatusBadRequest)
		return
	}
	text, err := storage.StatementSearchSQL(h.tenant, reads.StatementQuery{From: domain.DateOf(from), To: domain.DateOf(to),
		Window: domain.Window{Limit: 100}})
	if err != nil {
		http.Error(w, "bad query", http.StatusBadRequest)
		return
	}
	var total int64
	var rows []*bareStatement
	var b pgx.Batch
	b.Queue(text.Count, text.CountArgs...).QueryRow(func(row pgx.Row) error { return row.Scan(&total) })
	b.Queue(text.Page, text.PageArgs...).Query(func(rs pgx.Rows) error {
		for rs.Next() {
			s := &bareStatement{LineItems: []*bareLine{}}
			dest := []any{&s.ID, &s.Number, &s.Status, &s.StatementDate, &s.PayPeriodID, &s.PayPeriodTitle, &s.DriverID, &s.Currency}
			for i := range s.Totals {
				dest = append(dest, &s.Totals[i])
			}
			dest = append(dest, &s.NumberOfTrips, &s.Miles[0], &s.Miles[1], &s.Miles[2])
			if err := rs.Scan(dest...); err != nil {
				return err
			}
			rows = append(rows, s)
		}
		return rs.Err()
	})
	if err := h.pool.SendBatch(r.Context(), &b).Close(); err != nil {
		http.Error(w, "database error", http.StatusInternalServerError)
		return
	}
	hasMore := len(rows) > text.Limit
	if hasMore {
		rows = rows[:text.Limit]
	}
	if len(rows) > 0 {
		if err := h.relations(r, rows); err != nil {
			http.Error(w, "database error", http.StatusInternalServerError)
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"Total": total, "HasMore": hasMore, "Items": rows})
}

// relations attaches drivers, line items and sub-lines in one round trip.
func (h *bareHandler) relations(r *http.Request, rows []*bareStatement) error {
	stmtIDs := make([]uuid.UUID, len(rows))
	driverIDs := make([]uuid.UUID, 0, len(rows))
	for i, s := range rows {
		stmtIDs[i] = s.ID
		driverIDs = append(driverIDs, s.DriverID)
	}
	drivers := map[uuid.UUID]*bareDriver{}
	var lines []*bareLine
	byID := map[uuid.UUID]*bareLine{}
	var b pgx.Batch
	b.Queue(storage.StatementDriversSQL, h.tenant, driverIDs).Query(func(rs pgx.Rows) error {
		for rs.Next() {
			d := &bareDriver{}
			if err := rs.Scan(&d.ID, &d.Name, &d.Type, &d.CompanyName, &d.SubsidiaryID, &d.FleetName); err != nil {
				return err
			}
			drivers[d.ID] = d
		}
		return rs.Err()
	})
	b.Queue(storage.StatementLinesSQL, h.tenant, stmtIDs).Query(func(rs pgx.Rows) error {
		for rs.Next() {
			l := &bareLine{SubLines: []bareSubLine{}}
			if err := rs.Scan(&l.id, &l.statement, &l.Category, &l.Title, &l.PolicyName, &l.TripNumber, &l.LoadNumber,
				&l.Amount, &l.Currency, &l.TransactionType); err != nil {
				return err
			}
			lines = append(lines, l)
			byID[l.id] = l
		}
		return rs.Err()
	})
	b.Queue(storage.StatementSubLinesSQL, h.tenant, stmtIDs).Query(func(rs pgx.Rows) error {
		for rs.Next() {
			var lineID uuid.UUID
			var s bareSubLine
			if err := rs.Scan(&lineID, &s.Description, &s.Quantity, &s.Rate, &s.Amount, &s.Currency); err != nil {
				return err
			}
			if l := byID[lineID]; l != nil {
				l.SubLines = append(l.SubLines, s)
			}
		}
		return rs.Err()
	})
	if err := h.pool.SendBatch(r.Context(), &b).Close(); err != nil {
		return err
	}
	byStatement := make(map[uuid.UUID]*bareStatement, len(rows))
	for _, s := range rows {
		byStatement[s.ID] = s
		s.Driver = drivers[s.DriverID]
	}
	for _, l := range lines {
		if s := byStatement[l.statement]; s != nil {
			s.LineItems = append(s.LineItems, l)
		}
	}
	return nil
}
