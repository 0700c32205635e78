package seed

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

// load is the part of a load other phases refer to (invoices bill loads,
// statements pay their trips).
type load struct {
	id        uuid.UUID
	number    string
	status    domain.LoadStatus
	billing   domain.BillingStatus
	sub       int
	customer  int // -1: none
	order, po string
	source    string
	miles     int
	rate      cents
	created   time.Time
}

func loadNumber(i int) string { return fmt.Sprintf("LD-%07d", 1000001+i) }

// tripNumber names trip k (0-based) of load i.
func tripNumber(i, k int) string { return fmt.Sprintf("%s-%d", loadNumber(i), k+1) }

// loadAt derives load i's core from its row stream. Loads 0–8 take each
// status in turn; loads 9–14 are Delivered in each billing status.
func (s *seeder) loadAt(r *rand.Rand, i int) load {
	l := load{id: s.ids.of("load", i), number: loadNumber(i), customer: -1}
	switch {
	case i < len(domain.LoadStatuses):
		l.status = domain.LoadStatuses[i]
	case i < len(domain.LoadStatuses)+len(domain.BillingStatuses):
		l.status = domain.LoadDelivered
	default:
		l.status = weighted(r, loadStatusWeights)
	}
	switch {
	case i >= len(domain.LoadStatuses) && i < len(domain.LoadStatuses)+len(domain.BillingStatuses):
		l.billing = domain.BillingStatuses[i-len(domain.LoadStatuses)]
	case l.status == domain.LoadDelivered:
		l.billing = weighted(r, deliveredBillingWeights)
	case l.status == domain.LoadTONU:
		l.billing = weighted(r, []weight[domain.BillingStatus]{{"Invoiced", 1}, {"Paid", 1}})
	case l.status == domain.LoadInTransit || l.status == domain.LoadDispatched:
		l.billing = weighted(r, []weight[domain.BillingStatus]{{"Released", 3}, {"Queued", 1}})
	default:
		l.billing = "Released"
	}
	l.sub = pick("load-subsidiary", i, s.n.subsidiaries)
	if r.IntN(20) != 0 {
		l.customer = pick("load-customer", i, s.n.customers)
	}
	l.order = fmt.Sprintf("ORD-%06d", 200001+i)
	if r.IntN(3) != 0 {
		l.po = fmt.Sprintf("PO%07d", r.IntN(1e7))
	}
	l.source = oneOf(r, loadSources)
	l.miles = 150 + r.IntN(2050)
	l.rate = cents(l.miles) * between(r, 210, 340) / 100 * 100 // whole dollars
	l.created = epoch.Add(time.Duration(r.IntN(180*24*60)) * time.Minute)
	return l
}

type weight[T any] struct {
	v T
	w int
}

func weighted[T any](r *rand.Rand, ws []weight[T]) T {
	total := 0
	for _, w := range ws {
		total += w.w
	}
	x := r.IntN(total)
	for _, w := range ws {
		if x < w.w {
			return w.v
		}
		x -= w.w
	}
	return ws[len(ws)-1].v
}

var loadStatusWeights = []weight[domain.LoadStatus]{
	{domain.LoadOpen, 8}, {domain.LoadQuoted, 4}, {domain.LoadReserved, 3}, {domain.LoadCovered, 7},
	{domain.LoadDispatched, 8}, {domain.LoadInTransit, 10}, {domain.LoadDelivered, 50},
	{domain.LoadCancelled, 7}, {domain.LoadTONU, 3},
}

var deliveredBillingWeights = []weight[domain.BillingStatus]{
	{"Released", 5}, {"Queued", 10}, {"Invoiced", 25}, {"Financed", 5}, {"Completed", 15}, {"Paid", 40},
}

// tripStatus is the status of a load's trips given the load's status.
var tripStatus = map[domain.LoadStatus]string{
	domain.LoadCovered: "Assigned", domain.LoadDispatched: "Dispatched", domain.LoadInTransit: "InTransit",
	domain.LoadDelivered: "Completed", domain.LoadCancelled: "Cancelled", domain.LoadTONU: "Cancelled",
}

// loads: every status and billing status; Open, Quoted and Reserved loads and
// half the cancelled ones have no trips. Stops call at seeded locations.
func (s *seeder) loads(ctx context.Context) error {
	loads := newTable("loads", "id", "tenant_id", "load_number", "status", "billing_status", "subsidiary_id",
		"customer_id", "order_number", "po_number", "source", "rate", "currency", "weight", "commodity",
		"equipment_type", "created_at", "updated_at")
	stops := newTable("stops", "id", "tenant_id", "load_id", "sequence", "type", "location_id", "name", "street",
		"city", "state", "zip_code", "appointment_start", "appointment_end", "arrived_at", "departed_at")
	trips := newTable("trips", "id", "tenant_id", "load_id", "trip_number", "status", "driver_ids", "truck_id",
		"trailer_id", "carrier_id", "created_at", "updated_at")
	b := s.batch(loads, stops, trips)
	rl, rloc := newRows("load"), newRows("location")
	for i := 0; i < s.n.loads; i++ {
		r := rl.at(i)
		l := s.loadAt(r, i)
		var customer any
		if l.customer >= 0 {
			customer = s.ids.of("customer", l.customer)
		}
		var weightLbs any
		if r.IntN(10) != 0 {
			weightLbs = decimalOf(int64(18000+r.IntN(26000)), 0)
		}
		updated := l.created.Add(time.Duration(1+r.IntN(240)) * time.Hour)
		loads.add(l.id, s.tid, l.number, string(l.status), string(l.billing), s.ids.of("subsidiary", l.sub),
			customer, l.order, l.po, l.source, l.rate.num(), domain.USD, weightLbs, oneOf(r, commodities),
			oneOf(r, reads.TrailerEquipmentTypes), l.created, updated)

		nStops := 2
		if r.IntN(4) == 0 {
			nStops += 1 + r.IntN(2)
		}
		appt := l.created.Add(time.Duration(24+r.IntN(48)) * time.Hour).Truncate(time.Hour)
		done := stopsDone(l.status, nStops)
		for k := 0; k < nStops; k++ {
			typ := domain.Pickup
			if k == nStops-1 || (k > 0 && r.IntN(2) == 0) {
				typ = domain.Delivery
			}
			li := pick("stop-location", i*8+k, s.n.locations)
			loc := s.locationAt(rloc.at(li), li)
			var start, end, arrived, departed any
			if r.IntN(10) != 0 {
				start, end = appt, appt.Add(2*time.Hour)
			}
			if k < done {
				a := appt.Add(time.Duration(r.IntN(150)-30) * time.Minute)
				arrived, departed = a, a.Add(time.Duration(30+r.IntN(180))*time.Minute)
			}
			stops.add(s.ids.of("stop", i*8+k), s.tid, l.id, k+1, string(typ), loc.id, loc.name, loc.street,
				loc.place.city, loc.place.state, loc.place.zip, start, end, arrived, departed)
			appt = appt.Add(time.Duration(6+r.IntN(30)) * time.Hour)
		}

		nTrips := 0
		switch l.status {
		case domain.LoadOpen, domain.LoadQuoted, domain.LoadReserved:
		case domain.LoadCancelled:
			nTrips = r.IntN(2)
		default:
			nTrips = 1
			if r.IntN(7) == 0 {
				nTrips = 2 // a split trip
			}
		}
		for k := 0; k < nTrips; k++ {
			id := s.ids.of("trip", i*4+k)
			drivers := []uuid.UUID{}
			var truck, carrier any
			if r.IntN(5) == 0 {
				carrier = s.ids.of("carrier", pick("trip-carrier", i*4+k, s.n.carriers))
			} else {
				d := pick("trip-driver", i*4+k, s.n.drivers)
				drivers = append(drivers, s.ids.of("driver", d))
				if r.IntN(10) == 0 {
					drivers = append(drivers, s.ids.of("driver", (d+1)%s.n.drivers))
				}
				truck = s.ids.of("truck", pick("trip-truck", i*4+k, s.n.trucks))
			}
			trailer := opt(s.ids.of("trailer", pick("trip-trailer", i*4+k, s.n.trailers)), r.IntN(8) != 0)
			trips.add(id, s.tid, l.id, tripNumber(i, k), tripStatus[l.status], drivers, truck, trailer, carrier,
				l.created.Add(time.Hour), updated)
			if s.res.TripID == uuid.Nil && l.status == domain.LoadDelivered {
				s.res.TripID, s.res.LoadWithTrips = id, l.number
			}
		}
		if nTrips == 0 && s.res.LoadWithoutTrips == "" {
			s.res.LoadWithoutTrips = l.number
		}
		if err := b.maybeFlush(ctx); err != nil {
			return err
		}
		s.prog.step(s.ph.loads, 1)
	}
	return b.flush(ctx)
}

// stopsDone is how many stops a load in this status has visited.
func stopsDone(st domain.LoadStatus, n int) int {
	switch st {
	case domain.LoadDelivered:
		return n
	case domain.LoadInTransit:
		return n - 1
	case domain.LoadTONU:
		return 1
	}
	return 0
}
