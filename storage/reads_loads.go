package storage

import (
	"context"
	"slices"
	"strconv"

	"github.com/google/uuid"
	"github.com/shopspring/decimal"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	"github.com/haulgraph/haulgraph/domain"
)

// LoadByNumber answers DESIGN.md's load read endpoint: the full snapshot.
func (r *Reads) LoadByNumber(ctx context.Context, tenant uuid.UUID, loadNumber string) (*domain.Load, error) {
	var loads []domain.Load
	err := r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		var err error
		loads, err = loadsWhere(ctx, tx, tenant, "l.load_number = ?", loadNumber)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(loads) == 0 {
		return nil, domain.NotFound("load %s not found", loadNumber)
	}
	return &loads[0], nil
}

// loadsWhere reads load snapshots matching cond with their stops and trips:
// three queries for any number of loads.
func loadsWhere(ctx context.Context, tx bun.Tx, tenant uuid.UUID, cond string, args ...any) ([]domain.Load, error) {
	var rows []loadRow
	if err := selectRows(ctx, tx, &rows, `SELECT l.id, l.load_number, l.status, l.billing_status, l.subsidiary_id,
		coalesce(s.name, '') AS subsidiary_name, l.customer_id, c.name AS customer_name, l.order_number, l.po_number,
		l.source, l.rate, l.currency, l.weight, l.commodity, l.equipment_type, l.created_at, l.updated_at
		FROM loads l LEFT JOIN subsidiaries s ON s.id = l.subsidiary_id AND s.tenant_id = l.tenant_id
		LEFT JOIN customers c ON c.id = l.customer_id AND c.tenant_id = l.tenant_id
		WHERE l.tenant_id = ? AND `+cond+" ORDER BY l.load_number", append([]any{tenant}, args...)...); err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	loadIDs := make([]uuid.UUID, len(rows))
	for i, l := range rows {
		loadIDs[i] = l.ID
	}
	var stops []stopRow
	if err := selectRows(ctx, tx, &stops, `SELECT load_id, sequence, type, location_id, name, street, city, state,
		zip_code, appointment_start, appointment_end, arrived_at, departed_at FROM stops
		WHERE tenant_id = ? AND load_id = ANY(?) ORDER BY load_id, sequence`, tenant, pgdialect.Array(loadIDs)); err != nil {
		return nil, err
	}
	var trips []tripRow
	if err := selectRows(ctx, tx, &trips, `SELECT id, load_id, trip_number, status, driver_ids, truck_id, trailer_id,
		carrier_id FROM trips WHERE tenant_id = ? AND load_id = ANY(?) ORDER BY load_id, trip_number, id`,
		tenant, pgdialect.Array(loadIDs)); err != nil {
		return nil, err
	}
	stopsBy := map[uuid.UUID][]domain.Stop{}
	for _, s := range stops {
		stopsBy[s.LoadID] = append(stopsBy[s.LoadID], domain.Stop{
			Sequence: s.Sequence, Type: domain.StopType(s.Type), LocationID: s.LocationID, Name: s.Name,
			Address:          domain.Address{Street: s.Street, City: s.City, State: s.State, ZipCode: s.ZipCode},
			AppointmentStart: s.AppointmentStart, AppointmentEnd: s.AppointmentEnd, ArrivedAt: s.ArrivedAt, DepartedAt: s.DepartedAt,
		})
	}
	tripsBy := map[uuid.UUID][]domain.Trip{}
	for _, t := range trips {
		d := t.DriverIDs
		if d == nil {
			d = []uuid.UUID{}
		}
		tripsBy[t.LoadID] = append(tripsBy[t.LoadID], domain.Trip{
			ID: t.ID, TripNumber: t.TripNumber, Status: t.Status, DriverIDs: d, TruckID: t.TruckID,
			TrailerID: t.TrailerID, CarrierID: t.CarrierID, LoadID: t.LoadID,
		})
	}
	out := make([]domain.Load, len(rows))
	for i, l := range rows {
		var w *decimal.Decimal
		if l.Weight.Valid {
			w = &l.Weight.Decimal
		}
		out[i] = domain.Load{
			ID: l.ID, LoadNumber: l.LoadNumber, Status: domain.LoadStatus(l.Status), BillingStatus: domain.BillingStatus(l.BillingStatus),
			SubsidiaryID: l.SubsidiaryID, SubsidiaryName: l.SubsidiaryName, CustomerID: l.CustomerID,
			OrderNumber: l.OrderNumber, PONumber: l.PONumber, Source: l.Source, Rate: domain.NewMoney(l.Rate, l.Currency),
			Weight: w, Commodity: l.Commodity, EquipmentType: l.EquipmentType,
			Stops: stopsBy[l.ID], Trips: tripsBy[l.ID], CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt,
			CustomerName: l.CustomerName,
		}
		if out[i].Stops == nil {
			out[i].Stops = []domain.Stop{}
		}
		if out[i].Trips == nil {
			out[i].Trips = []domain.Trip{}
		}
	}
	return out, nil
}

// ListLoads answers the loads list: newest load number first, keyset paged
// on the load number; four queries for any page size.
func (r *Reads) ListLoads(ctx context.Context, tenant uuid.UUID, q domain.LoadListQuery) (domain.Page[domain.Load], error) {
	var page domain.Page[domain.Load]
	limit := q.Window.Limit
	if limit <= 0 || limit > domain.MaxPageSize {
		limit = domain.DefaultPageSize
	}
	from := "FROM loads l WHERE l.tenant_id = ?"
	args := []any{tenant}
	if len(q.Statuses) > 0 {
		st := make([]string, len(q.Statuses))
		for i, s := range q.Statuses {
			st[i] = string(s)
		}
		from += " AND l.status = ANY(?)"
		args = append(args, pgdialect.Array(st))
	}
	if q.SubsidiaryID != nil {
		from += " AND l.subsidiary_id = ?"
		args = append(args, *q.SubsidiaryID)
	}
	where := ""
	pageArgs := append([]any{}, args...)
	if q.Window.After != "" {
		parts, err := decodeCursor(q.Window.After, []string{"text"})
		if err != nil {
			return page, err
		}
		where = " AND l.load_number < ?"
		pageArgs = append(pageArgs, parts[0])
	}
	err := r.in(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		var err error
		if page.Total, err = count(ctx, tx, from, args...); err != nil {
			return err
		}
		var idList []uuid.UUID
		if err := tx.NewRaw("SELECT l.id "+from+where+" ORDER BY l.load_number DESC LIMIT "+strconv.Itoa(limit+1), pageArgs...).Scan(ctx, &idList); err != nil {
			return err
		}
		idList, page.HasMore = trim(idList, limit)
		if len(idList) == 0 {
			return nil
		}
		loads, err := loadsWhere(ctx, tx, tenant, "l.id = ANY(?)", pgdialect.Array(idList))
		if err != nil {
			return err
		}
		slices.Reverse(loads) // loadsWhere answers in ascending load number
		page.Items = loads
		return nil
	})
	if err != nil {
		return domain.Page[domain.Load]{}, err
	}
	for _, l := range page.Items {
		page.Cursors = append(page.Cursors, encodeCursor(l.LoadNumber))
	}
	return page, nil
}
