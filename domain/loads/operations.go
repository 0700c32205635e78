package loads

import "github.com/haulgraph/haulgraph/domain"

// The operations of load and trip writes and the scope each needs.
var (
	OpCreateLoad = domain.Operation{Name: "load.create", Scope: domain.ScopeLoadCreate}
	OpUpdateLoad = domain.Operation{Name: "load.update", Scope: domain.ScopeLoadUpdate}
	OpUpdateTrip = domain.Operation{Name: "trip.update", Scope: domain.ScopeTripUpdate}
)
