package seed

import (
	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
)

func newResult() *Result {
	return &Result{
		Statements:          map[reads.StatementStatus]int32{},
		VisibleByDriverType: map[domain.DriverType]int{},
		Counts:              map[string]int{},
	}
}

// merge adds a worker's partial result: counts add up, the well-known
// statement of a status is the lowest number, other keys are set by one
// worker only.
func (r *Result) merge(p *Result) {
	for k, v := range p.Counts {
		r.Counts[k] += v
	}
	for st, num := range p.Statements {
		if cur, ok := r.Statements[st]; !ok || num < cur {
			r.Statements[st] = num
		}
	}
	r.VisibleStatements += p.VisibleStatements
	for dt, v := range p.VisibleByDriverType {
		r.VisibleByDriverType[dt] += v
	}
	r.DriverVisibleStatements += p.DriverVisibleStatements
	r.SubsidiaryIDs = append(r.SubsidiaryIDs, p.SubsidiaryIDs...)
	r.Invoices = append(r.Invoices, p.Invoices...)
	r.LocationIDs = append(r.LocationIDs, p.LocationIDs...)
	for _, kv := range []struct{ dst, src *uuid.UUID }{{&r.SubsidiaryID, &p.SubsidiaryID}, {&r.TripID, &p.TripID},
		{&r.DriverID, &p.DriverID}, {&r.CarrierID, &p.CarrierID}, {&r.TrailerID, &p.TrailerID}} {
		if *kv.src != uuid.Nil {
			*kv.dst = *kv.src
		}
	}
	if p.Invoice.Number != "" {
		r.Invoice = p.Invoice
	}
	if p.LoadWithTrips != "" {
		r.LoadWithTrips = p.LoadWithTrips
	}
	if p.LoadWithoutTrips != "" {
		r.LoadWithoutTrips = p.LoadWithoutTrips
	}
}
