package loads

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/shopspring/decimal"
)

// Limits on load writes (docs/security.md: every input is bounded).
const (
	MaxStops        = 100
	MaxTrips        = 20
	MaxTripDrivers  = 4
	maxLoadText     = 200
	maxMoneyDigits  = 12 // numeric(14,2): 12 integer digits
	maxWeightDigits = 10 // numeric(12,2)
)

// MoneyInput is an amount as sent; Currency defaults to USD.
type MoneyInput struct {
	Amount   decimal.Decimal
	Currency *int
}

// StopInput is one stop of a load as sent; its Sequence is its position.
type StopInput struct {
	Type             string
	LocationID       *string
	Name             string
	Address          domain.Address
	AppointmentStart *time.Time
	AppointmentEnd   *time.Time
	ArrivedAt        *time.Time
	DepartedAt       *time.Time
}

// TripInput is a trip created with its load.
type TripInput struct {
	TripNumber string
	DriverIDs  []string
	TruckID    *string
	TrailerID  *string
	CarrierID  *string
}

// Input is createLoad's input (nil = absent).
type Input struct {
	LoadNumber    string
	Status        *string
	BillingStatus *string
	SubsidiaryID  string
	CustomerID    *string
	OrderNumber   *string
	PONumber      *string
	Source        *string
	Rate          *MoneyInput
	Weight        *decimal.Decimal
	Commodity     *string
	EquipmentType *string
	Stops         []StopInput
	Trips         []TripInput
}

// Patch is updateLoad's input: nil leaves a field as it is; Stops, when
// given, replaces every stop.
type Patch struct {
	BillingStatus *string
	CustomerID    *string
	OrderNumber   *string
	PONumber      *string
	Source        *string
	Rate          *MoneyInput
	Weight        *decimal.Decimal
	Commodity     *string
	EquipmentType *string
	Stops         []StopInput
}

// TripPatch is updateTrip's input: assign drivers, truck, trailer or carrier.
type TripPatch struct {
	DriverIDs []string
	TruckID   *string
	TrailerID *string
	CarrierID *string
}

// Ref is a reference a write makes to another record of the tenant; storage
// reports the ones that do not exist for the tenant.
type Ref struct {
	Table RefTable
	ID    uuid.UUID
	Field string // the input path, for the validation error
}

// RefTable is a table a load or trip write may reference; storage checks
// the tenant's rows of exactly these (RefTables), and its tests hold them
// equal to the foreign keys of loads, stops and trips.
type RefTable string

const (
	RefSubsidiaries RefTable = "subsidiaries"
	RefCustomers    RefTable = "customers"
	RefLocations    RefTable = "locations"
	RefDrivers      RefTable = "drivers"
	RefTrucks       RefTable = "trucks"
	RefTrailers     RefTable = "trailers"
	RefCarriers     RefTable = "carriers"
)

var RefTables = []RefTable{RefSubsidiaries, RefCustomers, RefLocations, RefDrivers, RefTrucks, RefTrailers, RefCarriers}

// WriteStore is the storage port of load and trip writes: fn runs in one
// tenant transaction, so the write and its outbox events commit together.
type WriteStore interface {
	WriteLoads(ctx context.Context, tenant uuid.UUID, fn func(ctx context.Context, tx WriteTx) error) error
}

// WriteTx is what a write may do inside its transaction. A store may send
// a write together with the next read (one round trip for both): a write's
// error can then come from the call after it, or from the commit.
type WriteTx interface {
	// LoadForUpdate locks the load and returns its snapshot (NotFound if absent).
	LoadForUpdate(ctx context.Context, loadNumber string) (*domain.Load, error)
	// TripForUpdate locks the trip's load and returns the trip (NotFound if absent).
	TripForUpdate(ctx context.Context, id uuid.UUID) (*domain.Trip, error)
	// LoadSnapshot reads the snapshot of a load by id.
	LoadSnapshot(ctx context.Context, id uuid.UUID) (*domain.Load, error)
	MissingRefs(ctx context.Context, refs []Ref) ([]Ref, error)
	// InsertLoad stores a new load with its stops and trips (CONFLICT when the
	// load number is taken).
	InsertLoad(ctx context.Context, l *domain.Load) error
	// UpdateLoad stores the load's own fields, and its stops when replaceStops.
	UpdateLoad(ctx context.Context, l *domain.Load, replaceStops bool) error
	UpdateTrip(ctx context.Context, t *domain.Trip) error
	AppendEvents(ctx context.Context, events []domain.Event) error
}

// Writes is the write service of loads and trips: it authorizes, validates,
// applies the transition table, and emits the events of each write.
type Writes struct {
	Store WriteStore
	Now   func() time.Time
}

func (s *Writes) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// CreateLoad stores a new load and emits load.changed without a diff.
func (s *Writes) CreateLoad(ctx context.Context, in Input) (*domain.Load, error) {
	p, err := domain.Authorize(ctx, OpCreateLoad)
	if err != nil {
		return nil, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	l, refs, err := in.validate(now)
	if err != nil {
		return nil, err
	}
	return s.writeLoad(ctx, p.TenantID, now, "", refs, func(*domain.Load) (*domain.Load, bool, error) { return l, true, nil })
}

// UpdateLoad changes a load's rate and other fields (not its status).
func (s *Writes) UpdateLoad(ctx context.Context, loadNumber string, patch Patch) (*domain.Load, error) {
	p, err := domain.Authorize(ctx, OpUpdateLoad)
	if err != nil {
		return nil, err
	}
	number, err := domain.ValidLoadNumber(loadNumber)
	if err != nil {
		return nil, err
	}
	var v domain.Validation
	stops, refs := patch.validate(&v)
	if err := v.Err(); err != nil {
		return nil, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	return s.writeLoad(ctx, p.TenantID, now, number, refs, func(before *domain.Load) (*domain.Load, bool, error) {
		next := *before
		patch.apply(&next, stops)
		next.UpdatedAt = now
		return &next, patch.Stops != nil, nil
	})
}

// ChangeLoadStatus moves a load along the transition table.
func (s *Writes) ChangeLoadStatus(ctx context.Context, loadNumber, status string) (*domain.Load, error) {
	p, err := domain.Authorize(ctx, OpUpdateLoad)
	if err != nil {
		return nil, err
	}
	number, err := domain.ValidLoadNumber(loadNumber)
	if err != nil {
		return nil, err
	}
	to := domain.LoadStatus(strings.TrimSpace(status))
	if !slices.Contains(domain.LoadStatuses, to) {
		return nil, CheckTransition(domain.LoadOpen, to) // the unknown-status error
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	return s.writeLoad(ctx, p.TenantID, now, number, nil, func(before *domain.Load) (*domain.Load, bool, error) {
		if err := CheckTransition(before.Status, to); err != nil {
			return nil, false, err
		}
		next := *before
		next.Status, next.UpdatedAt = to, now
		return &next, false, nil
	})
}

// writeLoad is the one shape of a load write, in one tenant transaction:
// the store locks and loads the aggregate (number ""; a new load: none),
// the references are checked, change decides the load to save (and whether
// its stops are replaced), the store saves it, reads it back and appends
// the events of the change.
func (s *Writes) writeLoad(ctx context.Context, tenant uuid.UUID, now time.Time, number string, refs []Ref,
	change func(before *domain.Load) (next *domain.Load, stops bool, err error)) (*domain.Load, error) {
	var out *domain.Load
	err := s.Store.WriteLoads(ctx, tenant, func(ctx context.Context, tx WriteTx) error {
		var before *domain.Load
		if number != "" {
			var err error
			if before, err = tx.LoadForUpdate(ctx, number); err != nil {
				return err
			}
		}
		if err := checkRefs(ctx, tx, refs); err != nil {
			return err
		}
		next, stops, err := change(before)
		if err != nil {
			return err
		}
		if before == nil {
			err = tx.InsertLoad(ctx, next)
		} else {
			err = tx.UpdateLoad(ctx, next, stops)
		}
		if err != nil {
			return err
		}
		if out, err = tx.LoadSnapshot(ctx, next.ID); err != nil {
			return err
		}
		events, err := LoadEvents(uuid.New(), now, tenant, before, out)
		if err != nil {
			return err
		}
		return tx.AppendEvents(ctx, events)
	})
	return out, err
}

// UpdateTrip assigns a trip's drivers, truck, trailer or carrier and emits
// trip.changed.
func (s *Writes) UpdateTrip(ctx context.Context, id string, patch TripPatch) (*domain.Trip, error) {
	p, err := domain.Authorize(ctx, OpUpdateTrip)
	if err != nil {
		return nil, err
	}
	var v domain.Validation
	tripID, err := uuid.Parse(strings.TrimSpace(id))
	if err != nil {
		v.Add("id", "id must be a UUID")
	}
	drivers, refs := patch.validate(&v)
	if err := v.Err(); err != nil {
		return nil, err
	}
	now := s.now().UTC().Truncate(time.Microsecond)
	var out *domain.Trip
	err = s.Store.WriteLoads(ctx, p.TenantID, func(ctx context.Context, tx WriteTx) error {
		before, err := tx.TripForUpdate(ctx, tripID)
		if err != nil {
			return err
		}
		if err := checkRefs(ctx, tx, refs); err != nil {
			return err
		}
		next := *before
		if patch.DriverIDs != nil {
			next.DriverIDs = drivers
		}
		setRef(&next.TruckID, patch.TruckID)
		setRef(&next.TrailerID, patch.TrailerID)
		setRef(&next.CarrierID, patch.CarrierID)
		if err := tx.UpdateTrip(ctx, &next); err != nil {
			return err
		}
		load, err := tx.LoadSnapshot(ctx, before.LoadID)
		if err != nil {
			return err
		}
		for i := range load.Trips {
			if load.Trips[i].ID == tripID {
				out = &load.Trips[i]
			}
		}
		if out == nil {
			return domain.NotFound("trip %s not found", tripID)
		}
		events, err := TripEvents(uuid.New(), now, p.TenantID, before, out, load)
		if err != nil {
			return err
		}
		return tx.AppendEvents(ctx, events)
	})
	return out, err
}

func checkRefs(ctx context.Context, tx WriteTx, refs []Ref) error {
	if len(refs) == 0 {
		return nil
	}
	missing, err := tx.MissingRefs(ctx, refs)
	if err != nil {
		return err
	}
	var v domain.Validation
	for _, r := range missing {
		v.Add(r.Field, "no such record: "+r.ID.String())
	}
	return v.Err()
}

// setRef applies an optional reference: absent keeps, "" clears, else sets
// (the value was validated as a UUID before).
func setRef(dst **uuid.UUID, in *string) {
	if in == nil {
		return
	}
	if strings.TrimSpace(*in) == "" {
		*dst = nil
		return
	}
	id := uuid.MustParse(strings.TrimSpace(*in))
	*dst = &id
}
