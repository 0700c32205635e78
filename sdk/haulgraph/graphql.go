package haulgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"

	"github.com/shopspring/decimal"
)

// GraphQL sends one operation to /graphql and decodes data into out. The
// first GraphQL error is returned as an *Error (Code is extensions.code,
// Errors its extensions.fields); out still receives whatever data came.
// Queries are retried as REST reads are; mutations on 429 only.
func (c *Client) GraphQL(ctx context.Context, query string, variables map[string]any, out any) error {
	return c.graphql(ctx, query, variables, out, true)
}

func (c *Client) graphql(ctx context.Context, query string, variables map[string]any, out any, idempotent bool) error {
	body, err := json.Marshal(map[string]any{"query": query, "variables": variables})
	if err != nil {
		return err
	}
	var res struct {
		Data   json.RawMessage `json:"data"`
		Errors []gqlError      `json:"errors"`
	}
	h, err := c.call(ctx, request{method: http.MethodPost, path: "/graphql", body: body, ctype: "application/json",
		accept: "application/graphql-response+json, application/json", idempotent: idempotent}, &res)
	if err != nil {
		return err
	}
	if out != nil && len(res.Data) > 0 && string(res.Data) != "null" {
		if err := json.Unmarshal(res.Data, out); err != nil {
			return fmt.Errorf("haulgraph: decoding GraphQL data: %w", err)
		}
	}
	if len(res.Errors) > 0 {
		e := &Error{StatusCode: http.StatusOK, Header: h}
		res.Errors[0].fill(e)
		return e
	}
	return nil
}

// gqlError is one entry of a GraphQL answer's errors.
type gqlError struct {
	Message    string `json:"message"`
	Path       []any  `json:"path"`
	Extensions struct {
		Code   string              `json:"code"`
		Fields map[string][]string `json:"fields"`
	} `json:"extensions"`
}

func (g gqlError) fill(e *Error) {
	e.Detail, e.Code, e.Path = g.Message, g.Extensions.Code, g.Path
	if len(g.Extensions.Fields) > 0 {
		e.Errors = g.Extensions.Fields
	}
}

// The GraphQL operations a dashboard uses, typed. Field names follow the
// GraphQL schema (camelCase), amounts are decimals.

// GraphMoney is a GraphQL Money.
type GraphMoney struct {
	Amount   decimal.Decimal `json:"amount"`
	Currency *int            `json:"currency"`
}

// DateRange bounds statements by date: whole UTC days, inclusive
// ("2025-01-03T00:00:00Z").
type DateTimeRange struct {
	Start string `json:"start"`
	End   string `json:"end"`
}

// StatementFilter selects statements (GraphQL's StatementFilter).
type StatementFilter struct {
	StatementDateRange DateTimeRange `json:"statementDateRange"`
	// DriverType: COMPANY, OWNER_OPERATOR or CONTRACTOR, any case.
	DriverType string `json:"driverType,omitempty"`
	DriverID   string `json:"driverId,omitempty"`
}

// DashboardStatement is a statement as the settlements dashboard shows it.
type DashboardStatement struct {
	Number         int    `json:"number"`
	Status         string `json:"status"`
	StatementDate  string `json:"statementDate"`
	PayPeriodTitle string `json:"payPeriodTitle"`
	Driver         struct {
		Name      string  `json:"name"`
		Type      string  `json:"type"`
		FleetName *string `json:"fleetName"`
	} `json:"driver"`
	Totals struct {
		GrossIncome GraphMoney       `json:"grossIncome"`
		Deductions  GraphMoney       `json:"deductions"`
		NetIncome   GraphMoney       `json:"netIncome"`
		LoadedMiles *decimal.Decimal `json:"loadedMiles"`
	} `json:"totals"`
}

// DashboardStatementPage is one page of the dashboard's statements.
type DashboardStatementPage struct {
	Total int                  `json:"total"`
	Items []DashboardStatement `json:"items"`
}

const dashboardStatementsQuery = `query DashboardStatements($filter: StatementFilter!, $page: Int, $pageSize: Int) {
  settlementStatements(filter: $filter, page: $page, pageSize: $pageSize) {
    total
    items {
      number status statementDate payPeriodTitle
      driver { name type fleetName }
      totals { grossIncome { amount currency } deductions { amount currency } netIncome { amount currency } loadedMiles }
    }
  }
}`

// DashboardStatements is the settlements dashboard's query: one page of
// statements with the driver and the totals.
func (c *Client) DashboardStatements(ctx context.Context, f StatementFilter, page, pageSize int) (*DashboardStatementPage, error) {
	var out struct {
		SettlementStatements *DashboardStatementPage `json:"settlementStatements"`
	}
	err := c.GraphQL(ctx, dashboardStatementsQuery, map[string]any{"filter": f, "page": page, "pageSize": pageSize}, &out)
	if err != nil {
		return nil, err
	}
	if out.SettlementStatements == nil {
		return &DashboardStatementPage{}, nil
	}
	return out.SettlementStatements, nil
}

// BoardLoad is a load as the dispatch board shows it.
type BoardLoad struct {
	ID            string           `json:"id"`
	LoadNumber    string           `json:"loadNumber"`
	Status        string           `json:"status"`
	BillingStatus string           `json:"billingStatus"`
	CustomerName  *string          `json:"customerName"`
	Rate          *GraphMoney      `json:"rate"`
	Weight        *decimal.Decimal `json:"weight"`
	Commodity     *string          `json:"commodity"`
	Stops         []struct {
		Type string  `json:"type"`
		Name *string `json:"name"`
	} `json:"stops"`
	Trips []struct {
		ID         string `json:"id"`
		TripNumber string `json:"tripNumber"`
	} `json:"trips"`
}

// boardLoadFields is the selection of BoardLoad, shared by the list, the
// mutations and the subscriptions.
const boardLoadFields = `id loadNumber status billingStatus customerName rate { amount currency } weight commodity
  stops { type name } trips { id tripNumber }`

// LoadFilter selects the loads of the list.
type LoadFilter struct {
	Statuses     []string `json:"statuses,omitempty"`
	SubsidiaryID string   `json:"subsidiaryId,omitempty"`
}

// LoadPage is one page of the board's list.
type LoadPage struct {
	TotalCount int         `json:"totalCount"`
	Items      []BoardLoad `json:"items"`
	PageInfo   struct {
		HasNextPage bool    `json:"hasNextPage"`
		EndCursor   *string `json:"endCursor"`
	} `json:"pageInfo"`
}

const loadsQuery = `query BoardLoads($filter: LoadFilter, $first: Int, $after: String) {
  loads(filter: $filter, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    items { ` + boardLoadFields + ` }
  }
}`

// ListLoads returns one page of the board's loads (newest load number
// first); after is the previous page's EndCursor ("" for the first).
func (c *Client) ListLoads(ctx context.Context, f LoadFilter, first int, after string) (*LoadPage, error) {
	vars := map[string]any{"filter": f, "first": first}
	if after != "" {
		vars["after"] = after
	}
	var out struct {
		Loads LoadPage `json:"loads"`
	}
	if err := c.GraphQL(ctx, loadsQuery, vars, &out); err != nil {
		return nil, err
	}
	return &out.Loads, nil
}

// Loads yields every load of the list, page by page.
func (c *Client) Loads(ctx context.Context, f LoadFilter, pageSize int) iter.Seq2[BoardLoad, error] {
	return func(yield func(BoardLoad, error) bool) {
		after := ""
		for {
			page, err := c.ListLoads(ctx, f, pageSize, after)
			if err != nil {
				yield(BoardLoad{}, err)
				return
			}
			for _, l := range page.Items {
				if !yield(l, nil) {
					return
				}
			}
			if !page.PageInfo.HasNextPage || page.PageInfo.EndCursor == nil {
				return
			}
			after = *page.PageInfo.EndCursor
		}
	}
}

// MoneyInput is an amount to write; Currency nil is 840 (USD).
type MoneyInput struct {
	Amount   decimal.Decimal `json:"amount"`
	Currency *int            `json:"currency,omitempty"`
}

// StopInput is a stop of a new load.
type StopInput struct {
	Type       string `json:"type"` // Pickup or Delivery
	LocationID string `json:"locationId,omitempty"`
	Name       string `json:"name,omitempty"`
}

// TripInput is a trip of a new load.
type TripInput struct {
	TripNumber string   `json:"tripNumber"`
	DriverIDs  []string `json:"driverIds,omitempty"`
	TruckID    string   `json:"truckId,omitempty"`
	TrailerID  string   `json:"trailerId,omitempty"`
}

// CreateLoadInput is a new load (GraphQL's CreateLoadInput, the fields
// integrations set most).
type CreateLoadInput struct {
	LoadNumber   string           `json:"loadNumber"`
	Status       string           `json:"status,omitempty"`
	SubsidiaryID string           `json:"subsidiaryId"`
	CustomerID   string           `json:"customerId,omitempty"`
	Rate         *MoneyInput      `json:"rate,omitempty"`
	Weight       *decimal.Decimal `json:"weight,omitempty"`
	Commodity    string           `json:"commodity,omitempty"`
	Stops        []StopInput      `json:"stops"`
	Trips        []TripInput      `json:"trips,omitempty"`
}

// UpdateLoadInput changes the fields set (nil leaves a field as it is).
type UpdateLoadInput struct {
	BillingStatus *string          `json:"billingStatus,omitempty"`
	CustomerID    *string          `json:"customerId,omitempty"`
	OrderNumber   *string          `json:"orderNumber,omitempty"`
	PONumber      *string          `json:"poNumber,omitempty"`
	Rate          *MoneyInput      `json:"rate,omitempty"`
	Weight        *decimal.Decimal `json:"weight,omitempty"`
	Commodity     *string          `json:"commodity,omitempty"`
}

// UpdateTripInput assigns a trip's drivers, truck, trailer or carrier.
type UpdateTripInput struct {
	DriverIDs []string `json:"driverIds,omitempty"`
	TruckID   *string  `json:"truckId,omitempty"`
	TrailerID *string  `json:"trailerId,omitempty"`
	CarrierID *string  `json:"carrierId,omitempty"`
}

func (c *Client) loadMutation(ctx context.Context, name, query string, vars map[string]any) (*BoardLoad, error) {
	var out map[string]*BoardLoad
	if err := c.graphql(ctx, query, vars, &out, false); err != nil {
		return nil, err
	}
	if out[name] == nil {
		return nil, fmt.Errorf("haulgraph: %s answered no load", name)
	}
	return out[name], nil
}

// CreateLoad creates a load (load:create); emits load.changed.
func (c *Client) CreateLoad(ctx context.Context, in CreateLoadInput) (*BoardLoad, error) {
	return c.loadMutation(ctx, "createLoad", `mutation CreateLoad($in: CreateLoadInput!) { createLoad(input: $in) { `+boardLoadFields+` } }`,
		map[string]any{"in": in})
}

// UpdateLoad changes a load (load:update); emits load.changed with a diff.
func (c *Client) UpdateLoad(ctx context.Context, loadNumber string, in UpdateLoadInput) (*BoardLoad, error) {
	return c.loadMutation(ctx, "updateLoad", `mutation UpdateLoad($n: String!, $in: UpdateLoadInput!) { updateLoad(loadNumber: $n, input: $in) { `+boardLoadFields+` } }`,
		map[string]any{"n": loadNumber, "in": in})
}

// ChangeLoadStatus moves a load to status (load:update); emits
// load.changed and load.status.changed.
func (c *Client) ChangeLoadStatus(ctx context.Context, loadNumber, status string) (*BoardLoad, error) {
	return c.loadMutation(ctx, "changeLoadStatus", `mutation ChangeLoadStatus($n: String!, $s: LoadStatus!) { changeLoadStatus(loadNumber: $n, status: $s) { `+boardLoadFields+` } }`,
		map[string]any{"n": loadNumber, "s": status})
}

// Trip is a trip after a write.
type Trip struct {
	ID         string `json:"id"`
	TripNumber string `json:"tripNumber"`
}

// UpdateTrip assigns a trip (trip:update); emits trip.changed.
func (c *Client) UpdateTrip(ctx context.Context, id string, in UpdateTripInput) (*Trip, error) {
	var out struct {
		UpdateTrip *Trip `json:"updateTrip"`
	}
	if err := c.graphql(ctx, `mutation UpdateTrip($id: ID!, $in: UpdateTripInput!) { updateTrip(id: $id, input: $in) { id tripNumber } }`,
		map[string]any{"id": id, "in": in}, &out, false); err != nil {
		return nil, err
	}
	if out.UpdateTrip == nil {
		return nil, fmt.Errorf("haulgraph: updateTrip answered no trip")
	}
	return out.UpdateTrip, nil
}
