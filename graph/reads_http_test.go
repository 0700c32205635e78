package graph_test

import (
	"fmt"
	"strings"
	"testing"
)

const statementFields = `number status statementDate payPeriodId payPeriodTitle
	driver { id name type companyName subsidiaryId fleetName }
	totals { grossIncome { amount currency } netIncome { amount currency } lineHaul { amount } numberOfTrips loadedMiles }
	lineItems { category title policyName tripNumber loadNumber amount { amount currency } transactionType
		subLines { description quantity rate amount { amount currency } } }`

const searchQuery = `query($f: StatementFilter!, $page: Int, $size: Int, $first: Int, $after: String) {
	settlementStatements(filter: $f, page: $page, pageSize: $size, first: $first, after: $after) {
		page pageSize total totalCount pageInfo { hasNextPage hasPreviousPage endCursor }
		items { ` + statementFields + ` } } }`

type statementJSON struct {
	Number int    `json:"number"`
	Status string `json:"status"`
	Date   string `json:"statementDate"`
	Driver struct {
		ID   string `json:"id"`
		Type string `json:"type"`
	} `json:"driver"`
	Totals struct {
		GrossIncome *struct {
			Amount   float64 `json:"amount"`
			Currency int     `json:"currency"`
		} `json:"grossIncome"`
		LineHaul any `json:"lineHaul"`
	} `json:"totals"`
	LineItems []struct {
		TransactionType *string `json:"transactionType"`
		SubLines        []any   `json:"subLines"`
	} `json:"lineItems"`
}

type connJSON struct {
	Page       *int            `json:"page"`
	PageSize   int             `json:"pageSize"`
	Total      int             `json:"total"`
	TotalCount int             `json:"totalCount"`
	Items      []statementJSON `json:"items"`
	PageInfo   struct {
		HasNextPage bool   `json:"hasNextPage"`
		EndCursor   string `json:"endCursor"`
	} `json:"pageInfo"`
}

func dateRange(start, end any) map[string]any {
	return map[string]any{"statementDateRange": map[string]any{"start": start, "end": end}}
}

func TestSettlementStatementsSearch(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 30)
	tok := w.token(t, "driver:read")
	out := gql(t, w.srv.URL, tok, searchQuery, map[string]any{"f": dateRange("2025-03-01T00:00:00Z", "2025-03-10T00:00:00Z"), "page": 0, "size": 100})
	var c connJSON
	out.Field(t, "settlementStatements", &c)
	var nums []int
	for _, s := range c.Items {
		nums = append(nums, s.Number)
	}
	// 6 (Generating) and 7 (Draft) are never returned; 5 is Failed and is.
	if fmt.Sprint(nums) != "[1 2 3 4 5 8 9 10]" || c.Total != 8 || c.TotalCount != 8 || c.PageSize != 100 || c.Page == nil || *c.Page != 0 {
		t.Fatalf("numbers %v total %d size %d page %v", nums, c.Total, c.PageSize, c.Page)
	}
	s := c.Items[4]
	if s.Status != "Failed" || s.Date != "2025-03-05" || s.Driver.ID != w.a.Drivers[1].String() || s.Driver.Type != "OWNER_OPERATOR" {
		t.Errorf("statement 5: %+v", s)
	}
	if s.Totals.GrossIncome == nil || s.Totals.GrossIncome.Amount != 1005.10 || s.Totals.GrossIncome.Currency != 840 || s.Totals.LineHaul != nil {
		t.Errorf("totals %+v", s.Totals)
	}
	if len(s.LineItems) != 2 || len(s.LineItems[0].SubLines) != 2 || s.LineItems[0].TransactionType != nil || *s.LineItems[1].TransactionType != "Deposit" {
		t.Errorf("line items %+v", s.LineItems)
	}
	// The amount is an exact JSON number.
	if !strings.Contains(string(out.Data["settlementStatements"]), `"amount":-12.34`) {
		t.Errorf("line amount not rendered as an exact number")
	}

	// Driver type is case-insensitive; driver id restricts.
	out = gql(t, w.srv.URL, tok, searchQuery, map[string]any{"f": map[string]any{
		"statementDateRange": map[string]any{"start": "2025-03-01T00:00:00Z", "end": "2025-03-30T00:00:00Z"}, "driverType": "owner_Operator"}, "page": 0, "size": 100})
	out.Field(t, "settlementStatements", &c)
	if c.Total != 10 {
		t.Errorf("owner operators: %d, want 10", c.Total)
	}
	for _, s := range c.Items {
		if s.Driver.Type != "OWNER_OPERATOR" {
			t.Errorf("statement %d is %s", s.Number, s.Driver.Type)
		}
	}
	out = gql(t, w.srv.URL, tok, searchQuery, map[string]any{"f": map[string]any{
		"statementDateRange": map[string]any{"start": "2025-03-01T00:00:00Z", "end": "2025-03-30T00:00:00Z"}, "driverId": w.a.Drivers[0].String()}, "page": 0, "size": 100})
	out.Field(t, "settlementStatements", &c)
	if c.Total != 9 {
		t.Errorf("driver 0: %d, want 9", c.Total)
	}

	// Offset paging: page 1 of size 3.
	out = gql(t, w.srv.URL, tok, searchQuery, map[string]any{"f": dateRange("2025-03-01T00:00:00Z", "2025-03-10T00:00:00Z"), "page": 1, "size": 3})
	out.Field(t, "settlementStatements", &c)
	nums = nil
	for _, s := range c.Items {
		nums = append(nums, s.Number)
	}
	if fmt.Sprint(nums) != "[4 5 8]" || !c.PageInfo.HasNextPage {
		t.Errorf("page 1 size 3: %v next %v", nums, c.PageInfo.HasNextPage)
	}

	// Relay paging walks the same order.
	var walked []int
	after := any(nil)
	for i := 0; i < 10; i++ {
		out = gql(t, w.srv.URL, tok, searchQuery, map[string]any{"f": dateRange("2025-03-01T00:00:00Z", "2025-03-10T00:00:00Z"), "first": 3, "after": after})
		out.Field(t, "settlementStatements", &c)
		if c.TotalCount != 8 || c.Page != nil {
			t.Fatalf("cursor page: totalCount %d page %v", c.TotalCount, c.Page)
		}
		for _, s := range c.Items {
			walked = append(walked, s.Number)
		}
		if !c.PageInfo.HasNextPage {
			break
		}
		after = c.PageInfo.EndCursor
	}
	if fmt.Sprint(walked) != "[1 2 3 4 5 8 9 10]" {
		t.Errorf("cursor walk %v", walked)
	}
}

func TestSettlementStatementsRejections(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 30)
	tok := w.token(t, "driver:read")
	good := dateRange("2025-03-01T00:00:00Z", "2025-03-10T00:00:00Z")
	cases := []struct {
		name  string
		vars  map[string]any
		field string
	}{
		{"no date range", map[string]any{"f": map[string]any{}, "page": 0, "size": 10}, "StatementDateRange"},
		{"open-ended", map[string]any{"f": dateRange("2025-03-01T00:00:00Z", nil), "page": 0, "size": 10}, "StatementDateRange.End"},
		{"no start", map[string]any{"f": dateRange(nil, "2025-03-01T00:00:00Z"), "page": 0, "size": 10}, "StatementDateRange.Start"},
		{"not a whole day", map[string]any{"f": dateRange("2025-03-01T10:00:00Z", "2025-03-02T00:00:00Z"), "page": 0, "size": 10}, "StatementDateRange.Start"},
		{"not a whole UTC day", map[string]any{"f": dateRange("2025-03-01T00:00:00+02:00", "2025-03-02T00:00:00Z"), "page": 0, "size": 10}, "StatementDateRange.Start"},
		{"start not a date-time", map[string]any{"f": dateRange("yesterday", "2025-03-02T00:00:00Z"), "page": 0, "size": 10}, ""},
		{"end before start", map[string]any{"f": dateRange("2025-03-05T00:00:00Z", "2025-03-01T00:00:00Z"), "page": 0, "size": 10}, "StatementDateRange"},
		{"page size 0", map[string]any{"f": good, "page": 0, "size": 0}, "PageSize"},
		{"page size 101", map[string]any{"f": good, "page": 0, "size": 101}, "PageSize"},
		{"no page size", map[string]any{"f": good, "page": 0}, "PageSize"},
		{"no page", map[string]any{"f": good, "size": 10}, "Page"},
		{"negative page", map[string]any{"f": good, "page": -1, "size": 10}, "Page"},
		{"first 101", map[string]any{"f": good, "first": 101}, "first"},
		{"first 0", map[string]any{"f": good, "first": 0}, "first"},
		{"both pagings", map[string]any{"f": good, "page": 0, "size": 10, "first": 5}, "first"},
		{"bad cursor", map[string]any{"f": good, "first": 5, "after": "bm9wZQ"}, "after"},
		{"bad driver type", map[string]any{"f": map[string]any{"statementDateRange": good["statementDateRange"], "driverType": "TRUCKER"}, "page": 0, "size": 10}, "DriverType"},
		{"bad driver id", map[string]any{"f": map[string]any{"statementDateRange": good["statementDateRange"], "driverId": "42"}, "page": 0, "size": 10}, "DriverId"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := gql(t, w.srv.URL, tok, searchQuery, c.vars)
			if out.Code(0) != "BAD_USER_INPUT" || !out.IsNull("settlementStatements") {
				t.Fatalf("%+v, want BAD_USER_INPUT and null", out)
			}
			fields, _ := out.Errors[0].Extensions["fields"].(map[string]any)
			if _, ok := fields[c.field]; !ok && c.field != "" {
				t.Errorf("fields %v, want %s named", fields, c.field)
			}
		})
	}
}

func TestSettlementStatementByNumber(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 30)
	tok := w.token(t, "driver:read")
	q := `query($n: Int!) { settlementStatement(number: $n) { number status lineItems { title } driver { name } } }`
	out := gql(t, w.srv.URL, tok, q, map[string]any{"n": 5})
	var s statementJSON
	out.Field(t, "settlementStatement", &s)
	if s.Number != 5 || s.Status != "Failed" || len(s.LineItems) != 2 {
		t.Errorf("statement 5: %+v", s)
	}
	for _, n := range []int{6, 7, 999} { // generating, draft, unknown
		out := gql(t, w.srv.URL, tok, q, map[string]any{"n": n})
		if !out.IsNull("settlementStatement") || out.Code(0) != "NOT_FOUND" {
			t.Errorf("statement %d: %+v, want null and NOT_FOUND", n, out)
		}
	}
}

func TestInvoiceQuery(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 10)
	tok := w.token(t, "invoice:read", "load:read")
	q := `query($id: ID, $n: String) { invoice(id: $id, number: $n) {
		id number type status createdDate invoicedDate total { amount currency } remainingBalance { amount currency }
		isSubmitted supplementalInvoiceType vendor { name remitAddress { city } } customer { name emailAddresses billingAddress { city } }
		lineItems { name amount { amount } rate { unitOfMeasurement units rate } loadNumber }
		loads { loadNumber subsidiaryName load { status trips { tripNumber } } } payments { checkNumber amount { amount } } } }`
	var inv map[string]any
	out := gql(t, w.srv.URL, tok, q, map[string]any{"id": w.a.Invoice.String()})
	out.Field(t, "invoice", &inv)
	byNumber := gql(t, w.srv.URL, tok, q, map[string]any{"n": "INV-1"})
	if string(byNumber.Data["invoice"]) != string(out.Data["invoice"]) {
		t.Errorf("by number differs from by id:\n%s\n%s", byNumber.Data["invoice"], out.Data["invoice"])
	}
	raw := string(out.Data["invoice"])
	for _, want := range []string{`"number":"INV-1"`, `"type":"LoadInvoice"`, `"status":"AwaitingPayment"`, `"remainingBalance":{"amount":1000.25,"currency":840}`,
		`"rate":3.0005`, `"vendor":{"name":"Haul Co","remitAddress":{"city":"Boise"}}`, `"emailAddresses":["a@acme.test"]`,
		`"loadNumber":"L-100","subsidiaryName":"acme Main","load":{"status":"Covered","trips":[{"tripNumber":"TR-1"}]}`,
		`"checkNumber":"CHK-9"`, `"invoicedDate":null`, `"supplementalInvoiceType":null`} {
		if !strings.Contains(raw, want) {
			t.Errorf("invoice lacks %s:\n%s", want, raw)
		}
	}
	for name, vars := range map[string]map[string]any{
		"neither": {}, "both": {"id": w.a.Invoice.String(), "n": "INV-1"}, "id not a uuid": {"id": "12"},
	} {
		out := gql(t, w.srv.URL, tok, q, vars)
		if out.Code(0) != "BAD_USER_INPUT" || !out.IsNull("invoice") {
			t.Errorf("%s: %+v, want BAD_USER_INPUT", name, out)
		}
	}
	out = gql(t, w.srv.URL, tok, q, map[string]any{"n": "INV-404"})
	if out.Code(0) != "NOT_FOUND" || !out.IsNull("invoice") {
		t.Errorf("unknown: %+v, want NOT_FOUND", out)
	}
}

func TestTrailersLocationsUsersLoadAndEventTypes(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 10)
	tok := w.token(t, allReadScopes...)
	out := gql(t, w.srv.URL, tok, `{
		trailers(first: 10) { totalCount items { trailerNum status year fleet { name invoiceNumberPrefix } capacity { pallets weight } notes { user } references { type value } } }
		locations(filter: {status: ["Active"]}, page: 0, pageSize: 2) { total page items { name status email notes { user } } pageInfo { hasNextPage } }
		users(keyword: "USER3", page: 0, pageSize: 10) { total items { userName permissions status } }
		all: users(keyword: "", page: 0, pageSize: 10) { total }
		load(loadNumber: "L-100") { loadNumber status billingStatus rate { amount currency } weight
			stops { sequence type location { name } }
			trips { tripNumber driverIds drivers { name type } trailer { trailerNum } carrier { name mcNumber } } }
		eventTypes }`, nil)
	if len(out.Errors) > 0 {
		t.Fatalf("errors: %+v", out.Errors)
	}
	for name, want := range map[string]string{
		"trailers":   `{"totalCount":1,"items":[{"trailerNum":"T-1","status":"Active","year":2020,"fleet":{"name":"Fleet A","invoiceNumberPrefix":"FA"},"capacity":{"pallets":26,"weight":null},"notes":[{"user":"ann"}],"references":[{"type":"ELD","value":"42"}]}]}`,
		"locations":  `{"total":3,"page":0,"items":[{"name":"Site 0","status":"Active","email":["x@y.test"],"notes":[{"user":"bob"}]},{"name":"Site 1","status":"Active","email":["x@y.test"],"notes":[{"user":"bob"}]}],"pageInfo":{"hasNextPage":true}}`,
		"users":      `{"total":1,"items":[{"userName":"user3","permissions":["loads.view"],"status":"Active"}]}`,
		"all":        `{"total":5}`,
		"eventTypes": `["load.changed","load.status.changed","trip.changed"]`,
	} {
		if got := string(out.Data[name]); got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
	load := string(out.Data["load"])
	for _, want := range []string{`"rate":{"amount":1500.25,"currency":840}`, `"weight":40000`, `"stops":[{"sequence":1,"type":"Pickup","location":{"name":"Site 0"}}`,
		`"drivers":[{"name":"Driver 0","type":"COMPANY"},{"name":"Driver 1","type":"OWNER_OPERATOR"}]`, `"trailer":{"trailerNum":"T-1"}`, `"carrier":{"name":"Carrier X","mcNumber":"MC1"}`} {
		if !strings.Contains(load, want) {
			t.Errorf("load lacks %s:\n%s", want, load)
		}
	}
	// Rules of docs/api-contract.md §4.5/§4.6 come from domain.
	for name, q := range map[string]string{
		"location page size 0":  `{ locations(pageSize: 0) { total } }`,
		"location status":       `{ locations(filter: {status: ["Closed"]}, pageSize: 5) { total } }`,
		"location id":           `{ locations(filter: {locationIds: ["x"]}, pageSize: 5) { total } }`,
		"users without page":    `{ users(pageSize: 5) { total } }`,
		"users both pagings":    `{ users(page: 0, pageSize: 5, after: "x") { total } }`,
		"trailers both pagings": `{ trailers(page: 0, pageSize: 5, first: 5) { total } }`,
		"trailers first 500":    `{ trailers(first: 500) { total } }`,
		"load number too long":  `{ load(loadNumber: "` + strings.Repeat("9", 65) + `") { id } }`,
	} {
		out := gql(t, w.srv.URL, tok, q, nil)
		if out.Code(0) != "BAD_USER_INPUT" {
			t.Errorf("%s: %+v, want BAD_USER_INPUT", name, out)
		}
	}
	out = gql(t, w.srv.URL, tok, `{ load(loadNumber: "L-404") { id } }`, nil)
	if out.Code(0) != "NOT_FOUND" || !out.IsNull("load") {
		t.Errorf("unknown load: %+v", out)
	}
}
