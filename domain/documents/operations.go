package documents

import "github.com/haulgraph/haulgraph/domain"

// The upload operations, one per parent, and the scope each needs: the
// parent's update scope.
var (
	OpUploadLoadDoc    = domain.Operation{Name: "load.document", Scope: domain.ScopeLoadUpdate}
	OpUploadTripDoc    = domain.Operation{Name: "trip.document", Scope: domain.ScopeTripUpdate}
	OpUploadDriverDoc  = domain.Operation{Name: "driver.document", Scope: domain.ScopeDriverUpdate}
	OpUploadCarrierDoc = domain.Operation{Name: "carrier.document", Scope: domain.ScopeCarrierUpdate}
)
