package haulgraph

import (
	"context"
	"iter"
	"net/http"
	"strconv"
	"time"
)

// StatementService reads settled driver statements.
type StatementService struct{ c *Client }

// StatementListParams selects statements by statement date (whole UTC
// days, both inclusive) and optionally by driver.
type StatementListParams struct {
	From, To   time.Time
	DriverType DriverType
	DriverID   string
	// Page is the first page to read (from 0); PageSize 1 to 100
	// (default 50).
	Page, PageSize int
}

func (p *StatementListParams) wire() map[string]any {
	size := p.PageSize
	if size <= 0 {
		size = 50
	}
	v := map[string]any{"Page": p.Page, "PageSize": size,
		"StatementDateRange": map[string]string{"Start": day(p.From), "End": day(p.To)}}
	if p.DriverType != "" {
		v["DriverType"] = p.DriverType
	}
	if p.DriverID != "" {
		v["DriverId"] = p.DriverID
	}
	return v
}

// day is t's UTC day at midnight, as the API bounds date ranges.
func day(t time.Time) string { return t.UTC().Format(time.DateOnly) + "T00:00:00Z" }

// ListPage reads one page of statements.
func (s *StatementService) ListPage(ctx context.Context, p *StatementListParams) (*Page[Statement], error) {
	if p == nil {
		p = &StatementListParams{}
	}
	var page struct {
		Page[Statement]
		Number   int `json:"Page"`
		PageSize int `json:"PageSize"`
	}
	meta, err := s.c.do(ctx, request{method: http.MethodPost, path: s.c.restPath("driver-settlement-statements/search"),
		body: jsonBody(p.wire()), ctype: "application/json", idempotent: true}, &page)
	if err != nil {
		return nil, err
	}
	page.LastResponse = meta
	if int64(page.Number+1)*int64(page.PageSize) < page.Total && len(page.Items) > 0 {
		page.Next = strconv.Itoa(page.Number + 1)
	}
	return &page.Page, nil
}

// List yields every statement p selects, from p.Page on, reading the next
// page as the loop reaches it.
func (s *StatementService) List(ctx context.Context, p *StatementListParams) iter.Seq2[Statement, error] {
	q := StatementListParams{}
	if p != nil {
		q = *p
	}
	return pages(func(next string) (*Page[Statement], error) {
		if next != "" {
			q.Page, _ = strconv.Atoi(next)
		}
		return s.ListPage(ctx, &q)
	})
}

// Get reads one statement by number.
func (s *StatementService) Get(ctx context.Context, number int) (*Statement, error) {
	var st Statement
	meta, err := s.c.do(ctx, request{method: http.MethodGet, path: s.c.restPath("driver-settlement-statements/" + strconv.Itoa(number)),
		idempotent: true}, &st)
	if err != nil {
		return nil, err
	}
	st.LastResponse = meta
	return &st, nil
}

const dashboardQuery = `query DashboardStatements($filter: StatementFilter!, $page: Int, $pageSize: Int) {
  settlementStatements(filter: $filter, page: $page, pageSize: $pageSize) {
    total
    items {
      number status statementDate payPeriodTitle
      driver { name type fleetName }
      totals { grossIncome { amount currency } deductions { amount currency } netIncome { amount currency } loadedMiles }
    }
  }
}`

// Dashboard is the settlements dashboard's GraphQL query: one page of
// statements with their driver and main totals (the other fields are
// empty).
func (s *StatementService) Dashboard(ctx context.Context, p *StatementListParams) (*Page[Statement], error) {
	if p == nil {
		p = &StatementListParams{}
	}
	filter := map[string]any{"statementDateRange": map[string]string{"start": day(p.From), "end": day(p.To)}}
	if p.DriverType != "" {
		filter["driverType"] = p.DriverType
	}
	if p.DriverID != "" {
		filter["driverId"] = p.DriverID
	}
	size := p.PageSize
	if size <= 0 {
		size = 50
	}
	var out struct {
		SettlementStatements *Page[Statement] `json:"settlementStatements"`
	}
	meta, err := s.c.GraphQL(ctx, dashboardQuery, map[string]any{"filter": filter, "page": p.Page, "pageSize": size}, &out)
	if err != nil {
		return nil, err
	}
	page := out.SettlementStatements
	if page == nil {
		page = &Page[Statement]{}
	}
	page.LastResponse = meta
	if int64(p.Page+1)*int64(size) < page.Total && len(page.Items) > 0 {
		page.Next = strconv.Itoa(p.Page + 1)
	}
	return page, nil
}
