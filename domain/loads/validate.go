package loads

// The validation of load and trip inputs: what a write may store and the
// references it makes.

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/shopspring/decimal"
)

// validate turns the input into a new load (ids assigned) and the references
// it makes.
func (in Input) validate(now time.Time) (*domain.Load, []Ref, error) {
	var v domain.Validation
	var refs []Ref
	l := &domain.Load{ID: uuid.New(), Status: domain.LoadOpen, BillingStatus: "Released", CreatedAt: now, UpdatedAt: now,
		Rate: domain.NewMoney(decimal.Zero, domain.USD), Stops: []domain.Stop{}, Trips: []domain.Trip{}}
	l.LoadNumber = in.LoadNumber
	v.IdentifierField("LoadNumber", "LoadNumber", l.LoadNumber)
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
		trip.TripNumber = t.TripNumber
		if v.IdentifierField(path+".TripNumber", "TripNumber", t.TripNumber) && seen[trip.TripNumber] {
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
