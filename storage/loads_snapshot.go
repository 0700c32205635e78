package storage

import (
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
)

// loadKey says how a snapshot read names its loads ($2 of its statements).
type loadKey int

const (
	loadByID     loadKey = iota // loads.id (a uuid.UUID)
	loadByNumber                // loads.load_number (a string)
	loadsByIDs                  // loads.id (a []uuid.UUID)
	loadOfTrip                  // the load of trips.id (a uuid.UUID)
)

// loadSQL are the statement texts of a snapshot read, per key: constant
// texts with $1 = tenant and $2 = the key. Stops and trips reach their loads
// through the same key, so the three queries need no answer from one another
// and go out in one round trip.
var loadSQL = [...]loadStatements{
	loadByID:     loadStatementsFor("l.id = $2"),
	loadByNumber: loadStatementsFor("l.load_number = $2"),
	loadsByIDs:   loadStatementsFor("l.id = ANY($2)"),
	loadOfTrip:   loadStatementsFor("l.id = (SELECT tr.load_id FROM trips tr WHERE tr.tenant_id = $1 AND tr.id = $2)"),
}

type loadStatements struct{ loads, stops, trips string }

func loadStatementsFor(key string) loadStatements {
	where := " WHERE l.tenant_id = $1 AND " + key
	return loadStatements{
		loads: `SELECT l.id, l.load_number, l.status, l.billing_status, l.subsidiary_id, coalesce(s.name, '') AS subsidiary_name,
			l.customer_id, c.name AS customer_name, l.order_number, l.po_number, l.source, l.rate, l.currency, l.weight, l.commodity,
			l.equipment_type, l.created_at, l.updated_at
			FROM loads l LEFT JOIN subsidiaries s ON s.id = l.subsidiary_id AND s.tenant_id = l.tenant_id
			LEFT JOIN customers c ON c.id = l.customer_id AND c.tenant_id = l.tenant_id` + where +
			" ORDER BY l.load_number",
		stops: `SELECT st.load_id, st.sequence, st.type, st.location_id, st.name, st.street, st.city, st.state,
			st.zip_code, st.appointment_start, st.appointment_end, st.arrived_at, st.departed_at
			FROM loads l JOIN stops st ON st.tenant_id = l.tenant_id AND st.load_id = l.id` + where +
			" ORDER BY st.load_id, st.sequence",
		trips: `SELECT tr.id, tr.load_id, tr.trip_number, tr.status, tr.driver_ids, tr.truck_id, tr.trailer_id,
			tr.carrier_id FROM loads l JOIN trips tr ON tr.tenant_id = l.tenant_id AND tr.load_id = l.id` + where +
			" ORDER BY tr.load_id, tr.trip_number, tr.id",
	}
}

// loadsRead is a snapshot read queued on a batch: the full snapshots of the
// loads its key names (with their stops and trips), as the load read
// endpoint answers them. Loads() is valid once the batch's results are read.
type loadsRead struct {
	loads []domain.Load
	stops map[uuid.UUID][]domain.Stop
	trips map[uuid.UUID][]domain.Trip
}

// queueLoads queues the three queries of a snapshot read on b.
func queueLoads(b *pgx.Batch, key loadKey, tenant uuid.UUID, arg any) *loadsRead {
	sql := loadSQL[key]
	r := &loadsRead{stops: map[uuid.UUID][]domain.Stop{}, trips: map[uuid.UUID][]domain.Trip{}}
	queueRows(b, sql.loads, func(rows pgx.Rows) error {
		row, err := pgx.RowToStructByName[loadRow](rows)
		r.loads = append(r.loads, row.load())
		return err
	}, tenant, arg)
	queueRows(b, sql.stops, func(rows pgx.Rows) error {
		row, err := pgx.RowToStructByName[stopRow](rows)
		r.stops[row.LoadID] = append(r.stops[row.LoadID], row.stop())
		return err
	}, tenant, arg)
	queueRows(b, sql.trips, func(rows pgx.Rows) error {
		t, err := pgx.RowToStructByName[domain.Trip](rows)
		if t.DriverIDs == nil {
			t.DriverIDs = []uuid.UUID{}
		}
		r.trips[t.LoadID] = append(r.trips[t.LoadID], t)
		return err
	}, tenant, arg)
	return r
}

// Loads are the snapshots read, in ascending load number; every load's
// Stops and Trips are non-nil.
func (r *loadsRead) Loads() []domain.Load {
	for i := range r.loads {
		l := &r.loads[i]
		l.Stops, l.Trips = r.stops[l.ID], r.trips[l.ID]
		if l.Stops == nil {
			l.Stops = []domain.Stop{}
		}
		if l.Trips == nil {
			l.Trips = []domain.Trip{}
		}
	}
	return r.loads
}

// queueLoads queues a snapshot read of the transaction's tenant.
func (t *Tx) queueLoads(key loadKey, arg any) *loadsRead {
	t.queued++
	return queueLoads(&t.batch, key, t.tenant, arg)
}
