package haulgraph

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"net/url"
)

// LoadService reads and writes loads: Get over REST, the rest over GraphQL
// (the dispatch board's operations).
type LoadService struct{ c *Client }

// Get reads a load by its load number.
func (s *LoadService) Get(ctx context.Context, loadNumber string) (*Load, error) {
	var l Load
	meta, err := s.c.do(ctx, request{method: http.MethodGet, path: s.c.restPath("loads/" + url.PathEscape(loadNumber)), idempotent: true}, &l)
	if err != nil {
		return nil, err
	}
	l.LastResponse = meta
	return &l, nil
}

// loadFields is what the GraphQL operations select of a load (the board's
// columns); the other fields of Load are empty in their answers.
const loadFields = `id loadNumber status billingStatus customerName rate { amount currency } weight commodity
  stops { type name } trips { id tripNumber }`

// LoadListParams selects loads of the board's list, newest load number
// first.
type LoadListParams struct {
	Statuses     []LoadStatus
	SubsidiaryID string
	// PageSize is 1 to 100 (default 50); After is a page's Next.
	PageSize int
	After    string
}

const loadsQuery = `query BoardLoads($filter: LoadFilter, $first: Int, $after: String) {
  loads(filter: $filter, first: $first, after: $after) {
    totalCount pageInfo { hasNextPage endCursor }
    items { ` + loadFields + ` }
  }
}`

// ListPage reads one page of the board's list.
func (s *LoadService) ListPage(ctx context.Context, p *LoadListParams) (*Page[Load], error) {
	if p == nil {
		p = &LoadListParams{}
	}
	filter := map[string]any{}
	if len(p.Statuses) > 0 {
		filter["statuses"] = p.Statuses
	}
	if p.SubsidiaryID != "" {
		filter["subsidiaryId"] = p.SubsidiaryID
	}
	size := p.PageSize
	if size <= 0 {
		size = 50
	}
	vars := map[string]any{"filter": filter, "first": size}
	if p.After != "" {
		vars["after"] = p.After
	}
	var out struct {
		Loads struct {
			TotalCount int64  `json:"totalCount"`
			Items      []Load `json:"items"`
			PageInfo   struct {
				HasNextPage bool    `json:"hasNextPage"`
				EndCursor   *string `json:"endCursor"`
			} `json:"pageInfo"`
		} `json:"loads"`
	}
	meta, err := s.c.GraphQL(ctx, loadsQuery, vars, &out)
	if err != nil {
		return nil, err
	}
	page := &Page[Load]{Items: out.Loads.Items, Total: out.Loads.TotalCount}
	page.LastResponse = meta
	if out.Loads.PageInfo.HasNextPage && out.Loads.PageInfo.EndCursor != nil {
		page.Next = *out.Loads.PageInfo.EndCursor
	}
	return page, nil
}

// List yields every load of the board's list, page by page.
func (s *LoadService) List(ctx context.Context, p *LoadListParams) iter.Seq2[Load, error] {
	q := LoadListParams{}
	if p != nil {
		q = *p
	}
	return pages(func(next string) (*Page[Load], error) {
		if next != "" {
			q.After = next
		}
		return s.ListPage(ctx, &q)
	})
}

// LoadParams is a new load: the fields integrations set most.
type LoadParams struct {
	LoadNumber   string
	SubsidiaryID string
	Status       LoadStatus // default Open
	CustomerID   string
	Rate         *Money
	Weight       *Decimal
	Commodity    string
	Stops        []StopParams
	Trips        []TripParams
}

// StopParams is a stop of a new load: at a known location or by name.
type StopParams struct {
	Type       StopType
	LocationID string
	Name       string
}

func (p *LoadParams) graph() map[string]any {
	v := map[string]any{"loadNumber": p.LoadNumber, "subsidiaryId": p.SubsidiaryID}
	set(v, "status", string(p.Status))
	set(v, "customerId", p.CustomerID)
	set(v, "commodity", p.Commodity)
	if p.Rate != nil {
		v["rate"] = p.Rate.graph()
	}
	if p.Weight != nil {
		v["weight"] = *p.Weight
	}
	stops := []map[string]any{}
	for _, s := range p.Stops {
		m := map[string]any{"type": s.Type}
		set(m, "locationId", s.LocationID)
		set(m, "name", s.Name)
		stops = append(stops, m)
	}
	v["stops"] = stops
	if len(p.Trips) > 0 {
		var trips []map[string]any
		for _, t := range p.Trips {
			m := t.graph()
			m["tripNumber"] = t.TripNumber
			trips = append(trips, m)
		}
		v["trips"] = trips
	}
	return v
}

func set(m map[string]any, k, v string) {
	if v != "" {
		m[k] = v
	}
}

func setPtr(m map[string]any, k string, v *string) {
	if v != nil {
		m[k] = *v
	}
}

// LoadUpdateParams changes the fields set (nil leaves a field as it is).
type LoadUpdateParams struct {
	BillingStatus *BillingStatus
	CustomerID    *string
	OrderNumber   *string
	PONumber      *string
	Rate          *Money
	Weight        *Decimal
	Commodity     *string
}

func (p *LoadUpdateParams) graph() map[string]any {
	v := map[string]any{}
	if p.BillingStatus != nil {
		v["billingStatus"] = *p.BillingStatus
	}
	setPtr(v, "customerId", p.CustomerID)
	setPtr(v, "orderNumber", p.OrderNumber)
	setPtr(v, "poNumber", p.PONumber)
	setPtr(v, "commodity", p.Commodity)
	if p.Rate != nil {
		v["rate"] = p.Rate.graph()
	}
	if p.Weight != nil {
		v["weight"] = *p.Weight
	}
	return v
}

// LoadStatusParams moves a load to Status.
type LoadStatusParams struct {
	Status LoadStatus
}

func (s *LoadService) mutate(ctx context.Context, name, query string, vars map[string]any) (*Load, error) {
	var out map[string]*Load
	meta, err := s.c.Mutate(ctx, query, vars, &out)
	if err != nil {
		return nil, err
	}
	if out[name] == nil {
		return nil, fmt.Errorf("haulgraph: %s answered no load", name)
	}
	out[name].LastResponse = meta
	return out[name], nil
}

// Create creates a load (scope load:create); it emits load.changed.
func (s *LoadService) Create(ctx context.Context, p *LoadParams) (*Load, error) {
	return s.mutate(ctx, "createLoad", `mutation CreateLoad($in: CreateLoadInput!) { createLoad(input: $in) { `+loadFields+` } }`,
		map[string]any{"in": p.graph()})
}

// Update changes a load (load:update); it emits load.changed with a diff.
func (s *LoadService) Update(ctx context.Context, loadNumber string, p *LoadUpdateParams) (*Load, error) {
	return s.mutate(ctx, "updateLoad", `mutation UpdateLoad($n: String!, $in: UpdateLoadInput!) { updateLoad(loadNumber: $n, input: $in) { `+loadFields+` } }`,
		map[string]any{"n": loadNumber, "in": p.graph()})
}

// ChangeStatus moves a load to another status (load:update); it emits
// load.changed and load.status.changed.
func (s *LoadService) ChangeStatus(ctx context.Context, loadNumber string, p *LoadStatusParams) (*Load, error) {
	return s.mutate(ctx, "changeLoadStatus", `mutation ChangeLoadStatus($n: String!, $s: LoadStatus!) { changeLoadStatus(loadNumber: $n, status: $s) { `+loadFields+` } }`,
		map[string]any{"n": loadNumber, "s": p.Status})
}

// TripService assigns trips.
type TripService struct{ c *Client }

// TripParams assigns a trip's drivers, truck, trailer or carrier (nil or
// empty leaves one as it is); TripNumber names a new load's trip.
type TripParams struct {
	TripNumber string
	DriverIDs  []string
	TruckID    *string
	TrailerID  *string
	CarrierID  *string
}

func (p *TripParams) graph() map[string]any {
	v := map[string]any{}
	if len(p.DriverIDs) > 0 {
		v["driverIds"] = p.DriverIDs
	}
	setPtr(v, "truckId", p.TruckID)
	setPtr(v, "trailerId", p.TrailerID)
	setPtr(v, "carrierId", p.CarrierID)
	return v
}

// Update assigns a trip (trip:update); it emits trip.changed.
func (s *TripService) Update(ctx context.Context, id string, p *TripParams) (*Trip, error) {
	var out struct {
		UpdateTrip *Trip `json:"updateTrip"`
	}
	meta, err := s.c.Mutate(ctx, `mutation UpdateTrip($id: ID!, $in: UpdateTripInput!) { updateTrip(id: $id, input: $in) { id tripNumber } }`,
		map[string]any{"id": id, "in": p.graph()}, &out)
	if err != nil {
		return nil, err
	}
	if out.UpdateTrip == nil {
		return nil, fmt.Errorf("haulgraph: updateTrip answered no trip")
	}
	out.UpdateTrip.LastResponse = meta
	return out.UpdateTrip, nil
}
