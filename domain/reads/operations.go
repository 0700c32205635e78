package reads

import "github.com/haulgraph/haulgraph/domain"

// The operations of the reads and the scope each needs (docs/architecture.md,
// "Scopes"; GraphQL's @hasScope names the same).
var (
	OpReadInvoice      = domain.Operation{Name: "invoice.read", Scope: domain.ScopeInvoiceRead}
	OpSearchStatements = domain.Operation{Name: "statement.search", Scope: domain.ScopeDriverRead}
	OpReadStatement    = domain.Operation{Name: "statement.read", Scope: domain.ScopeDriverRead}
	OpExportStatements = domain.Operation{Name: "statement.export", Scope: domain.ScopeDriverRead}
	OpListTrailers     = domain.Operation{Name: "trailer.list", Scope: domain.ScopeTrailerRead}
	OpSearchLocations  = domain.Operation{Name: "location.search", Scope: domain.ScopeCustomerRead}
	OpSearchUsers      = domain.Operation{Name: "user.search", Scope: domain.ScopeUserRead}
	OpReadLoad         = domain.Operation{Name: "load.read", Scope: domain.ScopeLoadRead}
)
