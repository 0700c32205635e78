package resolvers

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/graph/model"
)

// Conversions between the GraphQL inputs/events of schema/loads.graphqls and
// the domain: no rules here, they live in loads.Writes.

func createLoadInput(in model.CreateLoadInput) loads.Input {
	out := loads.Input{LoadNumber: in.LoadNumber, SubsidiaryID: in.SubsidiaryID, CustomerID: in.CustomerID,
		OrderNumber: in.OrderNumber, PONumber: in.PoNumber, Source: in.Source, Rate: moneyInput(in.Rate), Weight: in.Weight,
		Commodity: in.Commodity, EquipmentType: in.EquipmentType, Stops: stopInputs(in.Stops)}
	if in.Status != nil {
		s := string(*in.Status)
		out.Status = &s
	}
	if in.BillingStatus != nil {
		b := string(*in.BillingStatus)
		out.BillingStatus = &b
	}
	for _, t := range in.Trips {
		if t != nil {
			out.Trips = append(out.Trips, loads.TripInput{TripNumber: t.TripNumber, DriverIDs: t.DriverIds, TruckID: t.TruckID,
				TrailerID: t.TrailerID, CarrierID: t.CarrierID})
		}
	}
	return out
}

func loadPatch(in model.UpdateLoadInput) loads.Patch {
	out := loads.Patch{CustomerID: in.CustomerID, OrderNumber: in.OrderNumber, PONumber: in.PoNumber, Source: in.Source,
		Rate: moneyInput(in.Rate), Weight: in.Weight, Commodity: in.Commodity, EquipmentType: in.EquipmentType}
	if in.BillingStatus != nil {
		b := string(*in.BillingStatus)
		out.BillingStatus = &b
	}
	if in.Stops != nil {
		out.Stops = stopInputs(in.Stops)
		if out.Stops == nil {
			out.Stops = []loads.StopInput{}
		}
	}
	return out
}

func moneyInput(m *model.MoneyInput) *loads.MoneyInput {
	if m == nil {
		return nil
	}
	return &loads.MoneyInput{Amount: m.Amount, Currency: m.Currency}
}

func stopInputs(in []*model.StopInput) []loads.StopInput {
	var out []loads.StopInput
	for _, s := range in {
		if s == nil {
			continue
		}
		st := loads.StopInput{Type: string(s.Type), LocationID: s.LocationID, AppointmentStart: s.AppointmentStart,
			AppointmentEnd: s.AppointmentEnd, ArrivedAt: s.ArrivedAt, DepartedAt: s.DepartedAt}
		if s.Name != nil {
			st.Name = *s.Name
		}
		if a := s.Address; a != nil {
			st.Address = domain.Address{Street: str(a.Street), City: str(a.City), State: str(a.State), ZipCode: str(a.ZipCode)}
		}
		out = append(out, st)
	}
	return out
}

func str(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// stream opens a subscription whose events, converted, go straight into the
// channel gqlgen reads: the channel's buffer is the subscription's bounded
// queue (no goroutine per subscription). When its execution cannot keep up
// the hub cuts it off and the channel closes (the transport then ends its
// subscribers with an error they can resume from). The subscriptions'
// after: argument is not read here: the streaming transports apply it
// (live.Live.Resume replays stored events before the live stream).
func stream[T any](ctx context.Context, subs *eventlog.Subscriptions, eventType string, f *model.LoadEventFilter, convert func(*eventlog.LiveEvent) T) (<-chan T, error) {
	var in eventlog.SubscriptionInput
	if f != nil {
		in.LoadNumbers, in.SubsidiaryID = f.LoadNumbers, f.SubsidiaryID
		for _, s := range f.Statuses {
			in.Statuses = append(in.Statuses, string(s))
		}
	}
	buffer := subs.Buffer
	if buffer <= 0 {
		buffer = defaultSubscriberBuffer
	}
	out := make(chan T, buffer)
	sub, err := subs.Subscribe(ctx, eventlog.StreamFrom(ctx), eventType, in, eventlog.Sink{
		Deliver: func(ev *eventlog.LiveEvent) bool {
			select {
			case out <- convert(ev):
				return true
			default:
				return false
			}
		},
		Ended: func(bool) { close(out) },
	})
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, sub.Close)
	return out, nil
}

// defaultSubscriberBuffer applies when the configuration names none.
const defaultSubscriberBuffer = 64

func loadEvent(ev *eventlog.LiveEvent, cursor string, previous bool) *model.LoadEvent {
	return &model.LoadEvent{ID: ev.ID, Cursor: cursor, Type: ev.Type, Timestamp: ev.Timestamp.UTC().Format(domain.EventTimeLayout),
		Version: domain.EventPayloadVersion, Data: &model.LoadEventData{Load: ev.Data.Load, Diff: diff(ev.Data.Diff, previous)}}
}

func tripEvent(ev *eventlog.LiveEvent, cursor string, previous bool) *model.TripEvent {
	return &model.TripEvent{ID: ev.ID, Cursor: cursor, Type: ev.Type, Timestamp: ev.Timestamp.UTC().Format(domain.EventTimeLayout),
		Version: domain.EventPayloadVersion, Data: &model.TripEventData{Trip: ev.Data.Trip, Load: ev.Data.Load, Diff: diff(ev.Data.Diff, previous)}}
}

// diff renders data.diff for one subscriber: previousAttributes only when it
// asked for them (docs/api-contract.md §6.4), numbers kept exact.
func diff(d *domain.Diff, previous bool) *model.EventDiff {
	if d == nil {
		return nil
	}
	out := &model.EventDiff{Changes: make([]*domain.Change, len(d.Changes))}
	for i := range d.Changes {
		out.Changes[i] = &d.Changes[i]
	}
	if previous {
		out.PreviousAttributes = map[string]any{}
		for k, raw := range d.PreviousAttributes {
			var v any
			dec := json.NewDecoder(bytes.NewReader(raw))
			dec.UseNumber()
			if dec.Decode(&v) == nil {
				out.PreviousAttributes[k] = v
			}
		}
	}
	return out
}
