package storage

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
)

// LoadWrites is loads.WriteStore: each write runs in one tenant
// transaction together with the outbox insert of its events. Writes are
// queued and sent with the next read (Tx), so a write such as
// changeLoadStatus costs three round trips: lock and read, write and read
// back, events and commit.
type LoadWrites struct{ DB *DB }

var _ loads.WriteStore = (*LoadWrites)(nil)

// WriteLoads runs fn in a tenant transaction.
func (s *LoadWrites) WriteLoads(ctx context.Context, tenant uuid.UUID, fn func(context.Context, loads.WriteTx) error) error {
	return s.DB.inTenantTx(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		return fn(ctx, &loadTx{tx})
	})
}

// loadTx is loads.WriteTx. Its writes report their errors from the
// call that next reads, or from the commit.
type loadTx struct{ *Tx }

func (t *loadTx) LoadForUpdate(ctx context.Context, loadNumber string) (*domain.Load, error) {
	return t.lockAndRead(ctx, "SELECT id FROM loads WHERE tenant_id = $1 AND load_number = $2 FOR UPDATE",
		loadByNumber, loadNumber, func() error { return domain.NotFound("load %q not found", loadNumber) })
}

// TripForUpdate locks the trip's load: trip writes and load writes of one
// load serialize, so each event's before/after snapshots are consistent.
func (t *loadTx) TripForUpdate(ctx context.Context, id uuid.UUID) (*domain.Trip, error) {
	notFound := func() error { return domain.NotFound("trip %s not found", id) }
	l, err := t.lockAndRead(ctx, `SELECT l.id FROM loads l JOIN trips tr ON tr.load_id = l.id AND tr.tenant_id = l.tenant_id
		WHERE tr.tenant_id = $1 AND tr.id = $2 FOR UPDATE OF l`, loadOfTrip, id, notFound)
	if err != nil {
		return nil, err
	}
	for i := range l.Trips {
		if l.Trips[i].ID == id {
			return &l.Trips[i], nil
		}
	}
	return nil, notFound()
}

// lockAndRead locks a load row with lock and reads its snapshot after the
// lock, in one round trip: in READ COMMITTED each statement sees what
// committed before it started, so the snapshot follows the lock.
func (t *loadTx) lockAndRead(ctx context.Context, lock string, key loadKey, arg any, notFound func() error) (*domain.Load, error) {
	locked := false
	t.query(lock, func(pgx.Rows) error { locked = true; return nil }, t.tenant, arg)
	read := t.queueLoads(key, arg)
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	if loads := read.Loads(); locked && len(loads) == 1 {
		return &loads[0], nil
	}
	return nil, notFound()
}

// LoadSnapshot reads the snapshot with the load read endpoint's own
// statements (queueLoads), so data.load is exactly what GET
// /loads/{loadNumber} answers.
func (t *loadTx) LoadSnapshot(ctx context.Context, id uuid.UUID) (*domain.Load, error) {
	read := t.queueLoads(loadByID, id)
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	loads := read.Loads()
	if len(loads) == 0 {
		return nil, domain.NotFound("load not found")
	}
	return &loads[0], nil
}

// refSQL is the existence check of each table a write may reference (a
// whitelist: no table name comes from the caller).
var refSQL = func() map[loads.RefTable]string {
	m := map[loads.RefTable]string{}
	for _, table := range loads.RefTables {
		m[table] = "SELECT id FROM " + string(table) + " WHERE tenant_id = $1 AND id = ANY($2)"
	}
	return m
}()

// MissingRefs reports the references that are not rows of this tenant: one
// query per referenced table, all in one round trip. Foreign keys alone
// would accept another tenant's row.
func (t *loadTx) MissingRefs(ctx context.Context, refs []loads.Ref) ([]loads.Ref, error) {
	byTable := map[loads.RefTable][]uuid.UUID{}
	for _, r := range refs {
		if refSQL[r.Table] == "" {
			return nil, errors.New("storage: unknown reference table " + string(r.Table))
		}
		byTable[r.Table] = append(byTable[r.Table], r.ID)
	}
	found := map[loads.Ref]bool{}
	for table, ids := range byTable {
		t.query(refSQL[table], func(rows pgx.Rows) error {
			var id uuid.UUID
			err := rows.Scan(&id)
			found[loads.Ref{Table: table, ID: id}] = true
			return err
		}, t.tenant, ids)
	}
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	var missing []loads.Ref
	for _, r := range refs {
		if !found[loads.Ref{Table: r.Table, ID: r.ID}] {
			missing = append(missing, r)
		}
	}
	return missing, nil
}

const (
	insertLoadSQL = `INSERT INTO loads (id, tenant_id, load_number, status, billing_status, subsidiary_id, customer_id,
		order_number, po_number, source, rate, currency, weight, commodity, equipment_type, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`
	insertStopSQL = `INSERT INTO stops (id, tenant_id, load_id, sequence, type, location_id, name, street, city, state,
		zip_code, appointment_start, appointment_end, arrived_at, departed_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`
	insertTripSQL = `INSERT INTO trips (id, tenant_id, load_id, trip_number, status, driver_ids, truck_id, trailer_id,
		carrier_id, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`
	updateLoadSQL = `UPDATE loads SET status = $3, billing_status = $4, customer_id = $5, order_number = $6,
		po_number = $7, source = $8, rate = $9, currency = $10, weight = $11, commodity = $12, equipment_type = $13,
		updated_at = $14 WHERE tenant_id = $1 AND id = $2`
	deleteStopsSQL = "DELETE FROM stops WHERE tenant_id = $1 AND load_id = $2"
	updateTripSQL  = `UPDATE trips SET driver_ids = $3, truck_id = $4, trailer_id = $5, carrier_id = $6, updated_at = now()
		WHERE tenant_id = $1 AND id = $2`
)

func (t *loadTx) InsertLoad(_ context.Context, l *domain.Load) error {
	insert := t.exec(insertLoadSQL, l.ID, t.tenant, l.LoadNumber, string(l.Status), string(l.BillingStatus), l.SubsidiaryID,
		l.CustomerID, l.OrderNumber, l.PONumber, l.Source, l.Rate.Amount, currencyOf(l), l.Weight, l.Commodity,
		l.EquipmentType, l.CreatedAt, l.UpdatedAt)
	insert.Fn = func(br pgx.BatchResults) error {
		_, err := br.Exec()
		if isUnique(err) {
			return &domain.Error{Code: domain.CodeConflict, Message: "load number " + l.LoadNumber + " is taken",
				Fields: map[string][]string{"LoadNumber": {"a load with this number exists"}}}
		}
		return err
	}
	t.insertStops(l)
	for _, tr := range l.Trips {
		t.exec(insertTripSQL, tr.ID, t.tenant, l.ID, tr.TripNumber, tr.Status, nonNil(tr.DriverIDs), tr.TruckID,
			tr.TrailerID, tr.CarrierID, l.CreatedAt, l.UpdatedAt)
	}
	return nil
}

func (t *loadTx) UpdateLoad(_ context.Context, l *domain.Load, replaceStops bool) error {
	t.exec(updateLoadSQL, t.tenant, l.ID, string(l.Status), string(l.BillingStatus), l.CustomerID, l.OrderNumber,
		l.PONumber, l.Source, l.Rate.Amount, currencyOf(l), l.Weight, l.Commodity, l.EquipmentType, l.UpdatedAt)
	if replaceStops {
		t.exec(deleteStopsSQL, t.tenant, l.ID)
		t.insertStops(l)
	}
	return nil
}

func (t *loadTx) UpdateTrip(_ context.Context, tr *domain.Trip) error {
	t.exec(updateTripSQL, t.tenant, tr.ID, nonNil(tr.DriverIDs), tr.TruckID, tr.TrailerID, tr.CarrierID)
	return nil
}

func (t *loadTx) AppendEvents(ctx context.Context, events []domain.Event) error {
	return t.appendEvents(ctx, events)
}

func (t *loadTx) insertStops(l *domain.Load) {
	for _, s := range l.Stops {
		t.exec(insertStopSQL, uuid.New(), t.tenant, l.ID, s.Sequence, string(s.Type), s.LocationID, s.Name,
			s.Address.Street, s.Address.City, s.Address.State, s.Address.ZipCode, s.AppointmentStart,
			s.AppointmentEnd, s.ArrivedAt, s.DepartedAt)
	}
}

// currencyOf is the load's rate currency as stored (USD unless given).
func currencyOf(l *domain.Load) int {
	if l.Rate.Currency != nil {
		return *l.Rate.Currency
	}
	return domain.USD
}

func isUnique(err error) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == "23505"
}
