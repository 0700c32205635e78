package reads

import (
	"context"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// ExportFormat is the body format of a streaming export.
type ExportFormat string

const (
	ExportCSV    ExportFormat = "csv"
	ExportNDJSON ExportFormat = "ndjson"
)

// ExportFormats are the export's formats (the OpenAPI document's enum).
var ExportFormats = []ExportFormat{ExportCSV, ExportNDJSON}

// MaxConcurrentExports is how many statement exports one tenant may run at
// the same time, across all instances; one more is refused (429).
const MaxConcurrentExports = 2

// TooManyExports refuses an export beyond MaxConcurrentExports.
var TooManyExports = &domain.Error{Code: domain.CodeRateLimited, Message: "too many exports running for this tenant (at most 2 at a time): retry when one has finished"}

// StatementExportInput is the export's query string as sent (nil = absent).
type StatementExportInput struct {
	Start, End *string
	Format     *string
	DriverType *string
	DriverID   *string
}

// StatementExportQuery is a validated export: the statements of search's
// rules (Processed and Failed, whole UTC days, same filters), any range.
type StatementExportQuery struct {
	From, To   domain.Date // inclusive
	DriverType *domain.DriverType
	DriverID   *uuid.UUID
	Format     ExportFormat
}

// Validate applies the export's rules; fields are named as the query
// parameters. Format defaults to CSV.
func (in StatementExportInput) Validate() (StatementExportQuery, error) {
	var v domain.Validation
	q := StatementExportQuery{Format: ExportCSV}
	day := func(field string, s *string) (domain.Date, bool) {
		if s == nil {
			v.Add(field, field+" is required (YYYY-MM-DD)")
			return domain.Date{}, false
		}
		d, err := domain.ParseDate(*s)
		if err != nil {
			v.Add(field, field+" "+err.Error())
			return domain.Date{}, false
		}
		return d, true
	}
	from, okFrom := day("start", in.Start)
	to, okTo := day("end", in.End)
	if okFrom && okTo && to.Before(from.Time) {
		v.Add("end", "end must not be before start")
	}
	q.From, q.To = from, to
	if in.Format != nil {
		f, err := domain.ParseEnum(*in.Format, ExportFormats)
		if err != nil {
			v.Add("format", "format "+err.Error())
		}
		q.Format = f
	}
	q.DriverType, q.DriverID = statementDriverFilter(&v, in.DriverType, in.DriverID, "driverType", "driverId")
	return q, v.Err()
}

// StatementExportStore is the storage port of the export.
type StatementExportStore interface {
	// StreamStatements calls emit with every statement q selects, with
	// Driver and LineItems filled as search fills them, in (StatementDate,
	// Number) order, reading bounded batches from one snapshot: memory does
	// not grow with the range. It first takes one of slots export slots of
	// the tenant (shared by every instance) and answers TooManyExports when
	// none is free. An error of emit (a client gone) ends the read at once.
	StreamStatements(ctx context.Context, tenant uuid.UUID, q StatementExportQuery, slots int, emit func(*Statement) error) error
}

// Exports is the export service; REST calls it.
type Exports struct{ Store StatementExportStore }

// PrepareStatements authorizes the caller and validates the request before
// anything is written, so refusals are ordinary error answers.
func (e *Exports) PrepareStatements(ctx context.Context, in StatementExportInput) (StatementExportQuery, error) {
	if _, err := domain.Authorize(ctx, OpExportStatements); err != nil {
		return StatementExportQuery{}, err
	}
	return in.Validate()
}

// StreamStatements streams the statements of a prepared query to emit.
func (e *Exports) StreamStatements(ctx context.Context, q StatementExportQuery, emit func(*Statement) error) error {
	p, err := domain.Authorize(ctx, OpExportStatements)
	if err != nil {
		return err
	}
	return e.Store.StreamStatements(ctx, p.TenantID, q, MaxConcurrentExports, emit)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
