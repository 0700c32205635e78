package loads

import (
	"context"
	"slices"
	"strconv"
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
	p, err := domain.Authorize(ctx, domain.OpCreateLoad)
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
	p, err := domain.Authorize(ctx, domain.OpUpdateLoad)
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
	p, err := domain.Authorize(ctx, domain.OpUpdateLoad)
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
	p, err := domain.Authorize(ctx, domain.OpUpdateTrip)
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

// validate turns the input into a new load (ids assigned) and the references
// it makes.
func (in Input) validate(now time.Time) (*domain.Load, []Ref, error) {
	var v domain.Validation
	var refs []Ref
	l := &domain.Load{ID: uuid.New(), Status: domain.LoadOpen, BillingStatus: "Released", CreatedAt: now, UpdatedAt: now,
		Rate: domain.NewMoney(decimal.Zero, domain.USD), Stops: []domain.Stop{}, Trips: []domain.Trip{}}
	l.LoadNumber = strings.TrimSpace(in.LoadNumber)
	if l.LoadNumber == "" || len(l.LoadNumber) > domain.MaxLoadNumber {
		v.Add("LoadNumber", domain.LoadNumberRule("LoadNumber"))
	}
	if in.Status != nil {
		l.Status = domain.LoadStatus(*in.Status)
		if !slices.Contains(initialLoadStatuses, l.Status) {
			v.Add("Status", "a load is created as one of "+joinStatuses(initialLoadStatuses))
		}
	}
	if in.BillingStatus != nil {
		l.BillingStatus = validBilling(&v, *in.BillingStatus)
	}
	if id := domain.UUIDField(&v, "SubsidiaryId", in.SubsidiaryID, true); id != nil {
		l.SubsidiaryID = *id
		refs = append(refs, Ref{Table: RefSubsidiaries, ID: *id, Field: "SubsidiaryId"})
	}
	if in.CustomerID != nil {
		if l.CustomerID = domain.UUIDField(&v, "CustomerId", *in.CustomerID, false); l.CustomerID != nil {
			refs = append(refs, Ref{Table: RefCustomers, ID: *l.CustomerID, Field: "CustomerId"})
		}
	}
	l.OrderNumber = text(&v, "OrderNumber", in.OrderNumber)
	l.PONumber = text(&v, "PONumber", in.PONumber)
	l.Source = text(&v, "Source", in.Source)
	l.Commodity = text(&v, "Commodity", in.Commodity)
	l.EquipmentType = text(&v, "EquipmentType", in.EquipmentType)
	if in.Rate != nil {
		l.Rate = validMoney(&v, "Rate", *in.Rate)
	}
	if in.Weight != nil {
		l.Weight = validWeight(&v, *in.Weight)
	}
	if len(in.Stops) == 0 {
		v.Add("Stops", "a load needs at least one stop")
	}
	stops, stopRefs := validStops(&v, in.Stops)
	l.Stops, refs = stops, append(refs, stopRefs...)
	if len(in.Trips) > MaxTrips {
		v.Add("Trips", "at most "+strconv.Itoa(MaxTrips)+" trips")
	}
	seen := map[string]bool{}
	for i, t := range in.Trips {
		if i >= MaxTrips {
			break
		}
		path := "Trips[" + strconv.Itoa(i) + "]"
		trip := domain.Trip{ID: uuid.New(), LoadID: l.ID, Status: "Planned", DriverIDs: []uuid.UUID{}}
		trip.TripNumber = strings.TrimSpace(t.TripNumber)
		if trip.TripNumber == "" || len(trip.TripNumber) > domain.MaxLoadNumber {
			v.Add(path+".TripNumber", domain.LoadNumberRule("TripNumber"))
		} else if seen[trip.TripNumber] {
			v.Add(path+".TripNumber", "TripNumber repeats another trip of this load")
		}
		seen[trip.TripNumber] = true
		p := TripPatch{DriverIDs: t.DriverIDs, TruckID: t.TruckID, TrailerID: t.TrailerID, CarrierID: t.CarrierID}
		drivers, tripRefs := p.validateAt(&v, path+".")
		if drivers != nil {
			trip.DriverIDs = drivers
		}
		if v.Err() == nil {
			setRef(&trip.TruckID, t.TruckID)
			setRef(&trip.TrailerID, t.TrailerID)
			setRef(&trip.CarrierID, t.CarrierID)
		}
		refs = append(refs, tripRefs...)
		l.Trips = append(l.Trips, trip)
	}
	return l, refs, v.Err()
}

func (p Patch) validate(v *domain.Validation) ([]domain.Stop, []Ref) {
	var refs []Ref
	if p.BillingStatus != nil {
		validBilling(v, *p.BillingStatus)
	}
	if p.CustomerID != nil {
		if id := domain.UUIDField(v, "CustomerId", *p.CustomerID, false); id != nil {
			refs = append(refs, Ref{Table: RefCustomers, ID: *id, Field: "CustomerId"})
		}
	}
	for _, f := range []struct {
		name string
		val  *string
	}{{"OrderNumber", p.OrderNumber}, {"PONumber", p.PONumber}, {"Source", p.Source}, {"Commodity", p.Commodity}, {"EquipmentType", p.EquipmentType}} {
		text(v, f.name, f.val)
	}
	if p.Rate != nil {
		validMoney(v, "Rate", *p.Rate)
	}
	if p.Weight != nil {
		validWeight(v, *p.Weight)
	}
	if p.Stops == nil {
		return nil, refs
	}
	if len(p.Stops) == 0 {
		v.Add("Stops", "a load needs at least one stop")
	}
	stops, stopRefs := validStops(v, p.Stops)
	return stops, append(refs, stopRefs...)
}

// apply writes the (validated) patch onto l.
func (p Patch) apply(l *domain.Load, stops []domain.Stop) {
	var v domain.Validation // already validated: conversions cannot fail here
	if p.BillingStatus != nil {
		l.BillingStatus = domain.BillingStatus(*p.BillingStatus)
	}
	if p.CustomerID != nil {
		l.CustomerID = domain.UUIDField(&v, "", *p.CustomerID, false)
	}
	for _, f := range []struct {
		dst *string
		val *string
	}{{&l.OrderNumber, p.OrderNumber}, {&l.PONumber, p.PONumber}, {&l.Source, p.Source}, {&l.Commodity, p.Commodity}, {&l.EquipmentType, p.EquipmentType}} {
		if f.val != nil {
			*f.dst = strings.TrimSpace(*f.val)
		}
	}
	if p.Rate != nil {
		l.Rate = validMoney(&v, "", *p.Rate)
	}
	if p.Weight != nil {
		l.Weight = validWeight(&v, *p.Weight)
	}
	if p.Stops != nil {
		l.Stops = stops
	}
}

func (p TripPatch) validate(v *domain.Validation) ([]uuid.UUID, []Ref) { return p.validateAt(v, "") }

func (p TripPatch) validateAt(v *domain.Validation, prefix string) ([]uuid.UUID, []Ref) {
	var refs []Ref
	var drivers []uuid.UUID
	if p.DriverIDs != nil {
		drivers = []uuid.UUID{}
		if len(p.DriverIDs) > MaxTripDrivers {
			v.Add(prefix+"DriverIds", "at most "+strconv.Itoa(MaxTripDrivers)+" drivers")
		}
		for i, s := range p.DriverIDs {
			if i >= MaxTripDrivers {
				break
			}
			field := prefix + "DriverIds[" + strconv.Itoa(i) + "]"
			if id := domain.UUIDField(v, field, s, true); id != nil {
				if slices.Contains(drivers, *id) {
					v.Add(field, "driver listed twice")
					continue
				}
				drivers = append(drivers, *id)
				refs = append(refs, Ref{Table: RefDrivers, ID: *id, Field: field})
			}
		}
	}
	for _, r := range []struct {
		table RefTable
		field string
		val   *string
	}{{RefTrucks, "TruckId", p.TruckID}, {RefTrailers, "TrailerId", p.TrailerID}, {RefCarriers, "CarrierId", p.CarrierID}} {
		if r.val == nil {
			continue
		}
		if id := domain.UUIDField(v, prefix+r.field, *r.val, false); id != nil {
			refs = append(refs, Ref{Table: r.table, ID: *id, Field: prefix + r.field})
		}
	}
	return drivers, refs
}

func validStops(v *domain.Validation, in []StopInput) ([]domain.Stop, []Ref) {
	if len(in) > MaxStops {
		v.Add("Stops", "at most "+strconv.Itoa(MaxStops)+" stops")
		return nil, nil
	}
	var refs []Ref
	stops := make([]domain.Stop, 0, len(in))
	for i, s := range in {
		path := "Stops[" + strconv.Itoa(i) + "]."
		st := domain.Stop{Sequence: i + 1, Type: domain.StopType(s.Type), Name: strings.TrimSpace(s.Name),
			AppointmentStart: utcPtr(s.AppointmentStart), AppointmentEnd: utcPtr(s.AppointmentEnd),
			ArrivedAt: utcPtr(s.ArrivedAt), DepartedAt: utcPtr(s.DepartedAt)}
		if st.Type != domain.Pickup && st.Type != domain.Delivery {
			v.Add(path+"Type", "Type must be Pickup or Delivery")
		}
		text(v, path+"Name", &s.Name)
		st.Address = domain.Address{Street: text(v, path+"Address.Street", &s.Address.Street), City: text(v, path+"Address.City", &s.Address.City),
			State: text(v, path+"Address.State", &s.Address.State), ZipCode: text(v, path+"Address.ZipCode", &s.Address.ZipCode)}
		if s.LocationID != nil {
			if st.LocationID = domain.UUIDField(v, path+"LocationId", *s.LocationID, false); st.LocationID != nil {
				refs = append(refs, Ref{Table: RefLocations, ID: *st.LocationID, Field: path + "LocationId"})
			}
		}
		if st.AppointmentStart != nil && st.AppointmentEnd != nil && st.AppointmentEnd.Before(*st.AppointmentStart) {
			v.Add(path+"AppointmentEnd", "AppointmentEnd is before AppointmentStart")
		}
		if st.ArrivedAt != nil && st.DepartedAt != nil && st.DepartedAt.Before(*st.ArrivedAt) {
			v.Add(path+"DepartedAt", "DepartedAt is before ArrivedAt")
		}
		stops = append(stops, st)
	}
	return stops, refs
}

func validBilling(v *domain.Validation, s string) domain.BillingStatus {
	b := domain.BillingStatus(strings.TrimSpace(s))
	if !slices.Contains(domain.BillingStatuses, b) {
		names := make([]string, len(domain.BillingStatuses))
		for i, x := range domain.BillingStatuses {
			names[i] = string(x)
		}
		v.Add("BillingStatus", "BillingStatus must be one of "+strings.Join(names, ", "))
	}
	return b
}

func validMoney(v *domain.Validation, field string, m MoneyInput) domain.Money {
	cur := domain.USD
	if m.Currency != nil {
		cur = *m.Currency
		if cur < 1 || cur > 999 {
			v.Add(field+".Currency", "Currency must be an ISO 4217 numeric code")
		}
	}
	checkDecimal(v, field+".Amount", m.Amount, maxMoneyDigits)
	return domain.NewMoney(m.Amount, cur)
}

func validWeight(v *domain.Validation, w decimal.Decimal) *domain.Decimal {
	checkDecimal(v, "Weight", w, maxWeightDigits)
	return &domain.Decimal{Decimal: w}
}

// checkDecimal accepts non-negative values with at most two decimals that fit
// the column.
func checkDecimal(v *domain.Validation, field string, d decimal.Decimal, intDigits int) {
	switch {
	case d.IsNegative():
		v.Add(field, field+" must not be negative")
	case !d.Equal(d.Truncate(2)):
		v.Add(field, field+" has more than two decimals")
	case d.GreaterThanOrEqual(decimal.New(1, int32(intDigits))):
		v.Add(field, field+" is too large")
	}
}

func text(v *domain.Validation, field string, s *string) string {
	if s == nil {
		return ""
	}
	t := strings.TrimSpace(*s)
	if len(t) > maxLoadText {
		v.Add(field, field+" must be at most "+strconv.Itoa(maxLoadText)+" characters")
	}
	return t
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC().Truncate(time.Microsecond)
	return &u
}
