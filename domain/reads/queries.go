package reads

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// Store is the storage port behind every read of docs/api-contract.md §4. Each
// method is tenant-scoped; a row of another tenant is simply not found.
type Store interface {
	InvoiceByID(ctx context.Context, tenant uuid.UUID, id uuid.UUID) (*Invoice, error)
	InvoiceByNumber(ctx context.Context, tenant uuid.UUID, number string) (*Invoice, error)
	SearchStatements(ctx context.Context, tenant uuid.UUID, q StatementQuery) (domain.Page[Statement], error)
	StatementByNumber(ctx context.Context, tenant uuid.UUID, number int32) (*Statement, error)
	ListTrailers(ctx context.Context, tenant uuid.UUID, w domain.Window) (domain.Page[Trailer], error)
	SearchLocations(ctx context.Context, tenant uuid.UUID, q LocationQuery) (domain.Page[Location], error)
	SearchUsers(ctx context.Context, tenant uuid.UUID, q UserQuery) (domain.Page[User], error)
	LoadByNumber(ctx context.Context, tenant uuid.UUID, loadNumber string) (*domain.Load, error)
	LoadLister
}

// Service is the read service: it authorizes the caller, applies the API contract's
// rules and asks storage. REST and GraphQL both call it.
type Service struct{ Store Store }

// MaxInvoiceNumberLength bounds an invoice number.
const MaxInvoiceNumberLength = 64

// InvoiceKey names an invoice by id or by number: exactly one (docs/api-contract.md §4.1).
type InvoiceKey struct{ ID, Number *string }

// Invoice answers docs/api-contract.md §4.1.
func (r *Service) Invoice(ctx context.Context, key InvoiceKey) (*Invoice, error) {
	p, err := domain.Authorize(ctx, OpReadInvoice)
	if err != nil {
		return nil, err
	}
	// An empty parameter is one not given (the contract: each is required
	// when the other is empty); a blank number is empty too, while an id
	// of spaces is given, and not a uuid.
	id, number := "", trimmed(key.Number)
	if key.ID != nil {
		id = *key.ID
	}
	var v domain.Validation
	switch {
	case id == "" && number == "":
		v.Add("id", "id is required when invoiceNumber is empty")
		v.Add("invoiceNumber", "invoiceNumber is required when id is empty")
	case id != "" && number != "":
		v.Add("id", "give either id or invoiceNumber, not both")
	}
	if key.Number != nil {
		v.CheckLength("invoiceNumber", *key.Number, MaxInvoiceNumberLength)
	}
	var uid uuid.UUID
	if id != "" && number == "" {
		if uid, err = domain.ParseUUID(*key.ID); err != nil {
			v.Add("id", "id "+err.Error())
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	if id != "" {
		return r.Store.InvoiceByID(ctx, p.TenantID, uid)
	}
	return r.Store.InvoiceByNumber(ctx, p.TenantID, number)
}

// DateRangeInput is a window as the client sent it.
type DateRangeInput struct{ Start, End *time.Time }

// StatementSearchInput is docs/api-contract.md §4.2's request as sent (nil = absent).
type StatementSearchInput struct {
	Page, PageSize     *int
	StatementDateRange *DateRangeInput
	DriverType         *string
	DriverID           *string
	// First/After select Relay paging instead of Page/PageSize.
	First *int
	After *string
	// Skip names the parts the caller will not show (zero: none skipped, REST's shape).
	Skip StatementSkip
}

// StatementSkip names the parts of a statement search that cost their own
// work — the match count and the relations — and that a caller showing only
// some (GraphQL, by its selection set) need not pay for. Skipped parts stay
// empty. The zero value skips nothing.
type StatementSkip struct {
	Total     bool // Page.Total (a count over every match)
	Totals    bool // Statement.Totals
	Driver    bool // Statement.Driver
	LineItems bool // Statement.LineItems (and so their SubLines)
	SubLines  bool // LineItems[].SubLines
}

// StatementQuery is a validated statement search.
type StatementQuery struct {
	From, To   domain.Date // inclusive whole UTC days
	DriverType *domain.DriverType
	DriverID   *uuid.UUID
	Window     domain.Window
	Skip       StatementSkip
}

// Validate applies every rule of docs/api-contract.md §4.2.
func (in StatementSearchInput) Validate() (StatementQuery, error) {
	var v domain.Validation
	var q StatementQuery
	q.Window = domain.CheckListWindow(&v, in.Page, in.PageSize, in.First, in.After, true)
	q.Skip = in.Skip
	q.Skip.SubLines = q.Skip.SubLines || q.Skip.LineItems
	switch r := in.StatementDateRange; {
	case r == nil:
		v.Add("StatementDateRange", "StatementDateRange is required")
	default:
		if r.Start == nil {
			v.Add("StatementDateRange.Start", "Start is required")
		} else if !wholeUTCDay(*r.Start) {
			v.Add("StatementDateRange.Start", "Start must be a whole UTC day written as midnight with a zero offset (00:00:00Z)")
		} else {
			q.From = domain.DateOf(*r.Start)
		}
		if r.End == nil {
			v.Add("StatementDateRange.End", "End is required: an open-ended range is rejected")
		} else if !wholeUTCDay(*r.End) {
			v.Add("StatementDateRange.End", "End must be a whole UTC day written as midnight with a zero offset (00:00:00Z)")
		} else {
			q.To = domain.DateOf(*r.End)
		}
		if r.Start != nil && r.End != nil && r.End.Before(*r.Start) {
			v.Add("StatementDateRange", "End must not be before Start")
		}
	}
	q.DriverType, q.DriverID = statementDriverFilter(&v, in.DriverType, in.DriverID, "DriverType", "DriverId")
	return q, v.Err()
}

// statementDriverFilter is docs/api-contract.md §4.2's driver filters (search and export):
// DriverType one of domain.DriverTypes in any case (as the contract says of
// the search, which the export mirrors), DriverId a canonical UUID; nil is
// absent. typeField and idField name the inputs as the transport's client
// sent them.
func statementDriverFilter(v *domain.Validation, driverType, driverID *string, typeField, idField string) (*domain.DriverType, *uuid.UUID) {
	var dt *domain.DriverType
	var id *uuid.UUID
	if driverType != nil {
		if t, ok := domain.ParseDriverType(*driverType); ok {
			dt = &t
		} else {
			v.Add(typeField, typeField+" must be one of COMPANY, OWNER_OPERATOR, CONTRACTOR (in any case)")
		}
	}
	if driverID != nil {
		if u, err := domain.ParseUUID(*driverID); err == nil {
			id = &u
		} else {
			v.Add(idField, idField+" "+err.Error())
		}
	}
	return dt, id
}

// SearchStatements answers docs/api-contract.md §4.2.
func (r *Service) SearchStatements(ctx context.Context, in StatementSearchInput) (domain.Page[Statement], error) {
	p, err := domain.Authorize(ctx, OpSearchStatements)
	if err != nil {
		return domain.Page[Statement]{}, err
	}
	q, err := in.Validate()
	if err != nil {
		return domain.Page[Statement]{}, err
	}
	return domain.Answering[Statement](q.Window)(r.Store.SearchStatements(ctx, p.TenantID, q))
}

// Statement answers docs/api-contract.md §4.3: unknown or in-flight numbers are not found.
func (r *Service) Statement(ctx context.Context, number int32) (*Statement, error) {
	p, err := domain.Authorize(ctx, OpReadStatement)
	if err != nil {
		return nil, err
	}
	return r.Store.StatementByNumber(ctx, p.TenantID, number)
}

// Trailers answers docs/api-contract.md §4.4 (REST: WholeListWindow slices of the whole
// list; GraphQL: a window).
func (r *Service) Trailers(ctx context.Context, w domain.Window) (domain.Page[Trailer], error) {
	p, err := domain.Authorize(ctx, OpListTrailers)
	if err != nil {
		return domain.Page[Trailer]{}, err
	}
	return domain.Answering[Trailer](w)(r.Store.ListTrailers(ctx, p.TenantID, w))
}

// LocationSearchInput is docs/api-contract.md §4.5's request as sent.
type LocationSearchInput struct {
	Page, PageSize   *int
	Status           []string
	LocationIDs      []string
	CreatedDateRange *DateRangeInput
	First            *int
	After            *string
}

// LocationQuery is a validated location search.
type LocationQuery struct {
	Statuses      []LocationStatus
	IDs           []uuid.UUID
	CreatedAfter  *time.Time // inclusive
	CreatedBefore *time.Time // inclusive
	Window        domain.Window
}

// Validate applies docs/api-contract.md §4.5's rules.
func (in LocationSearchInput) Validate() (LocationQuery, error) {
	var v domain.Validation
	var q LocationQuery
	q.Window = domain.CheckListWindow(&v, in.Page, in.PageSize, in.First, in.After, false)
	if len(in.Status) > len(LocationStatuses) {
		v.Add("Status", fmt.Sprintf("at most %d statuses", len(LocationStatuses)))
	}
	for _, s := range in.Status {
		st, err := domain.ParseEnum(s, LocationStatuses)
		if err != nil {
			v.Add("Status", "Status "+domain.Quote(s)+" "+err.Error())
			continue
		}
		q.Statuses = append(q.Statuses, st)
	}
	if len(in.LocationIDs) > domain.MaxPageSize {
		v.Add("LocationIds", fmt.Sprintf("at most %d ids", domain.MaxPageSize))
	}
	for _, s := range in.LocationIDs {
		id, err := domain.ParseUUID(s)
		if err != nil {
			v.Add("LocationIds", domain.Quote(s)+" "+err.Error())
			continue
		}
		q.IDs = append(q.IDs, id)
	}
	if r := in.CreatedDateRange; r != nil {
		q.CreatedAfter, q.CreatedBefore = r.Start, r.End
		if r.Start != nil && r.End != nil && r.End.Before(*r.Start) {
			v.Add("CreatedDateRange", "End must not be before Start")
		}
	}
	return q, v.Err()
}

// SearchLocations answers docs/api-contract.md §4.5.
func (r *Service) SearchLocations(ctx context.Context, in LocationSearchInput) (domain.Page[Location], error) {
	p, err := domain.Authorize(ctx, OpSearchLocations)
	if err != nil {
		return domain.Page[Location]{}, err
	}
	q, err := in.Validate()
	if err != nil {
		return domain.Page[Location]{}, err
	}
	return domain.Answering[Location](q.Window)(r.Store.SearchLocations(ctx, p.TenantID, q))
}

// UserSearchInput is docs/api-contract.md §4.6's request as sent.
type UserSearchInput struct {
	Page, PageSize *int
	Keyword        *string
	First          *int
	After          *string
}

// MaxKeywordLength bounds the user search text.
const MaxKeywordLength = 200

// UserQuery is a validated user search.
type UserQuery struct {
	Keyword string // lower-cased, trimmed; empty matches all
	Window  domain.Window
}

// Validate applies docs/api-contract.md §4.6's rules.
func (in UserSearchInput) Validate() (UserQuery, error) {
	var v domain.Validation
	var q UserQuery
	q.Window = domain.CheckListWindow(&v, in.Page, in.PageSize, in.First, in.After, true)
	q.Keyword = strings.ToLower(trimmed(in.Keyword))
	if in.Keyword != nil {
		v.CheckLength("Keyword", *in.Keyword, MaxKeywordLength)
	}
	return q, v.Err()
}

// SearchUsers answers docs/api-contract.md §4.6.
func (r *Service) SearchUsers(ctx context.Context, in UserSearchInput) (domain.Page[User], error) {
	p, err := domain.Authorize(ctx, OpSearchUsers)
	if err != nil {
		return domain.Page[User]{}, err
	}
	q, err := in.Validate()
	if err != nil {
		return domain.Page[User]{}, err
	}
	return domain.Answering[User](q.Window)(r.Store.SearchUsers(ctx, p.TenantID, q))
}

// Load answers docs/architecture.md's load read endpoint.
func (r *Service) Load(ctx context.Context, loadNumber string) (*domain.Load, error) {
	p, err := domain.Authorize(ctx, OpReadLoad)
	if err != nil {
		return nil, err
	}
	n, err := domain.ValidLoadNumber(loadNumber)
	if err != nil {
		return nil, err
	}
	return r.Store.LoadByNumber(ctx, p.TenantID, n)
}

func wholeUTCDay(t time.Time) bool {
	_, offset := t.Zone()
	return offset == 0 && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
}

// WholeUTCDayPattern is how a whole UTC day is written as a date-time:
// midnight with a zero offset (the OpenAPI document's pattern; the same
// instant written with another offset is refused, one spelling per day).
const WholeUTCDayPattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}[Tt]00:00:00(\.0{1,9})?([Zz]|[+-]00:00)$`

func trimmed(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}
