package storage

import (
	"context"
	"database/sql"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
)

// LoadWrites is domain.LoadWriteStore: each write runs in one tenant
// transaction together with the outbox insert of its events.
type LoadWrites struct{ DB *DB }

var _ domain.LoadWriteStore = (*LoadWrites)(nil)

// WriteLoads runs fn in a tenant transaction.
func (s *LoadWrites) WriteLoads(ctx context.Context, tenant uuid.UUID, fn func(context.Context, domain.LoadWriteTx) error) error {
	return s.DB.InTenant(ctx, tenant, func(ctx context.Context, tx bun.Tx) error {
		return fn(ctx, &loadTx{tx: tx, tenant: tenant})
	})
}

type loadTx struct {
	tx     bun.Tx
	tenant uuid.UUID
}

func (t *loadTx) LoadForUpdate(ctx context.Context, loadNumber string) (*domain.Load, error) {
	var id uuid.UUID
	err := t.tx.NewRaw("SELECT id FROM loads WHERE tenant_id = ? AND load_number = ? FOR UPDATE", t.tenant, loadNumber).Scan(ctx, &id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.NotFound("load %q not found", loadNumber)
	}
	if err != nil {
		return nil, err
	}
	return t.LoadSnapshot(ctx, id)
}

// TripForUpdate locks the trip's load: trip writes and load writes of one
// load serialize, so each event's before/after snapshots are consistent.
func (t *loadTx) TripForUpdate(ctx context.Context, id uuid.UUID) (*domain.Trip, error) {
	var loadID uuid.UUID
	err := t.tx.NewRaw(`SELECT l.id FROM loads l JOIN trips tr ON tr.load_id = l.id AND tr.tenant_id = l.tenant_id
		WHERE tr.tenant_id = ? AND tr.id = ? FOR UPDATE OF l`, t.tenant, id).Scan(ctx, &loadID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, domain.NotFound("trip %s not found", id)
	}
	if err != nil {
		return nil, err
	}
	l, err := t.LoadSnapshot(ctx, loadID)
	if err != nil {
		return nil, err
	}
	for i := range l.Trips {
		if l.Trips[i].ID == id {
			return &l.Trips[i], nil
		}
	}
	return nil, domain.NotFound("trip %s not found", id)
}

// LoadSnapshot reads the snapshot with the load read endpoint's own query
// (loadsWhere), so data.load is exactly what GET /loads/{loadNumber} answers.
func (t *loadTx) LoadSnapshot(ctx context.Context, id uuid.UUID) (*domain.Load, error) {
	loads, err := loadsWhere(ctx, t.tx, t.tenant, "l.id = ?", id)
	if err != nil {
		return nil, err
	}
	if len(loads) == 0 {
		return nil, domain.NotFound("load not found")
	}
	return &loads[0], nil
}

// refTables are the tables a write may reference (a whitelist: the name is
// put into SQL).
var refTables = map[string]bool{"subsidiaries": true, "customers": true, "locations": true, "drivers": true,
	"trucks": true, "trailers": true, "carriers": true}

// MissingRefs reports the references that are not rows of this tenant; one
// query per referenced table. Foreign keys alone would accept another
// tenant's row.
func (t *loadTx) MissingRefs(ctx context.Context, refs []domain.Ref) ([]domain.Ref, error) {
	byTable := map[string][]uuid.UUID{}
	for _, r := range refs {
		if !refTables[r.Table] {
			return nil, errors.New("storage: unknown reference table " + r.Table)
		}
		byTable[r.Table] = append(byTable[r.Table], r.ID)
	}
	found := map[string]map[uuid.UUID]bool{}
	for table, ids := range byTable {
		var have []uuid.UUID
		if err := t.tx.NewRaw("SELECT id FROM ? WHERE tenant_id = ? AND id IN (?)", bun.Ident(table), t.tenant, bun.In(ids)).Scan(ctx, &have); err != nil {
			return nil, err
		}
		found[table] = map[uuid.UUID]bool{}
		for _, id := range have {
			found[table][id] = true
		}
	}
	var missing []domain.Ref
	for _, r := range refs {
		if !found[r.Table][r.ID] {
			missing = append(missing, r)
		}
	}
	return missing, nil
}

func (t *loadTx) InsertLoad(ctx context.Context, l *domain.Load) error {
	row := t.row(l)
	if _, err := t.tx.NewInsert().Model(&row).Exec(ctx); err != nil {
		if isUnique(err) {
			return &domain.Error{Code: domain.CodeConflict, Message: "load number " + l.LoadNumber + " is taken",
				Fields: map[string][]string{"LoadNumber": {"a load with this number exists"}}}
		}
		return err
	}
	if err := t.insertStops(ctx, l); err != nil {
		return err
	}
	if len(l.Trips) == 0 {
		return nil
	}
	trips := make([]tripRow, len(l.Trips))
	for i, tr := range l.Trips {
		trips[i] = tripRow{ID: tr.ID, TenantID: t.tenant, LoadID: l.ID, TripNumber: tr.TripNumber, Status: tr.Status,
			DriverIDs: tr.DriverIDs, TruckID: tr.TruckID, TrailerID: tr.TrailerID, CarrierID: tr.CarrierID,
			CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
	}
	_, err := t.tx.NewInsert().Model(&trips).Exec(ctx)
	return err
}

func (t *loadTx) UpdateLoad(ctx context.Context, l *domain.Load, replaceStops bool) error {
	row := t.row(l)
	_, err := t.tx.NewUpdate().Model(&row).
		Column("status", "billing_status", "customer_id", "order_number", "po_number", "source", "rate", "currency",
			"weight", "commodity", "equipment_type", "updated_at").
		Where("tenant_id = ? AND id = ?", t.tenant, l.ID).Exec(ctx)
	if err != nil || !replaceStops {
		return err
	}
	if _, err := t.tx.NewDelete().Model((*stopRow)(nil)).Where("tenant_id = ? AND load_id = ?", t.tenant, l.ID).Exec(ctx); err != nil {
		return err
	}
	return t.insertStops(ctx, l)
}

func (t *loadTx) UpdateTrip(ctx context.Context, tr *domain.Trip) error {
	row := tripRow{DriverIDs: tr.DriverIDs, TruckID: tr.TruckID, TrailerID: tr.TrailerID, CarrierID: tr.CarrierID}
	_, err := t.tx.NewUpdate().Model(&row).Column("driver_ids", "truck_id", "trailer_id", "carrier_id").
		Set("updated_at = now()").Where("tenant_id = ? AND id = ?", t.tenant, tr.ID).Exec(ctx)
	return err
}

func (t *loadTx) AppendEvents(ctx context.Context, events []domain.Event) error {
	return appendEvents(ctx, t.tx, events)
}

func (t *loadTx) row(l *domain.Load) loadRow {
	row := loadRow{ID: l.ID, TenantID: t.tenant, LoadNumber: l.LoadNumber, Status: string(l.Status),
		BillingStatus: string(l.BillingStatus), SubsidiaryID: l.SubsidiaryID, CustomerID: l.CustomerID,
		OrderNumber: l.OrderNumber, PONumber: l.PONumber, Source: l.Source, Rate: l.Rate.Amount, Currency: domain.USD,
		Commodity: l.Commodity, EquipmentType: l.EquipmentType, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt}
	if l.Rate.Currency != nil {
		row.Currency = *l.Rate.Currency
	}
	if l.Weight != nil {
		row.Weight.Decimal, row.Weight.Valid = *l.Weight, true
	}
	return row
}

func (t *loadTx) insertStops(ctx context.Context, l *domain.Load) error {
	if len(l.Stops) == 0 {
		return nil
	}
	stops := make([]stopRow, len(l.Stops))
	for i, s := range l.Stops {
		stops[i] = stopRow{ID: uuid.New(), TenantID: t.tenant, LoadID: l.ID, Sequence: s.Sequence, Type: string(s.Type),
			LocationID: s.LocationID, Name: s.Name, Street: s.Address.Street, City: s.Address.City, State: s.Address.State,
			ZipCode: s.Address.ZipCode, AppointmentStart: s.AppointmentStart, AppointmentEnd: s.AppointmentEnd,
			ArrivedAt: s.ArrivedAt, DepartedAt: s.DepartedAt}
	}
	_, err := t.tx.NewInsert().Model(&stops).Exec(ctx)
	return err
}

func isUnique(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505"
}
