package operation

import (
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// listBounds are the unpaged lists the domain bounds, priced by that bound
// (a load holds up to 100 stops: pricing them 5 let a page of events
// return 70 times what it was charged).
var listBounds = map[string]int{
	"Load.stops":     loads.MaxStops,
	"Load.trips":     loads.MaxTrips,
	"Trip.drivers":   loads.MaxTripDrivers,
	"Query.webhooks": webhooks.MaxPerTenant,
}

// listBound is how many elements the unpaged list field (Type.field) may
// return: its domain bound, else nestedListSize (lists the domain does
// not bound, and introspection's, which the schema bounds).
func listBound(field string) int {
	if n, ok := listBounds[field]; ok {
		return n
	}
	return nestedListSize
}
