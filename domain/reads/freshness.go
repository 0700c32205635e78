package reads

import "github.com/haulgraph/haulgraph/domain"

// What each entity, as the reads show it, is computed from: the resources
// whose writes may change it (the response cache checks their versions).
// A related entity shown whole (an invoice's customer, a trailer's fleet)
// counts its own; a name shown inline (a load's subsidiary) counts the
// resource that holds it. Over-approximated where in doubt: a resource
// missing here is a stale answer.
var (
	// InvoiceReads: an invoice with its line items and payments; vendor
	// and customer (parties).
	InvoiceReads = domain.ResourceSet(domain.ResourceInvoices, domain.ResourceParties)
	// InvoiceLoadReads: a load an invoice bills, with its subsidiary's name.
	InvoiceLoadReads = domain.ResourceSet(domain.ResourceInvoices, domain.ResourceLoads, domain.ResourceParties)
	// StatementReads: a settlement statement, its lines and sub-lines, and
	// its driver (with the fleet's name).
	StatementReads = domain.ResourceSet(domain.ResourceStatements, domain.ResourceParties)
	// TrailerReads: a trailer, its notes and references, and its fleet.
	TrailerReads = domain.ResourceSet(domain.ResourceTrailers, domain.ResourceParties)
	// LocationReads: a location and its notes.
	LocationReads = domain.ResourceSet(domain.ResourceLocations)
	// UserReads: a user.
	UserReads = domain.ResourceSet(domain.ResourceUsers)
	// LoadReads: a load, its stops and trips, with its subsidiary's and
	// customer's names.
	LoadReads = domain.ResourceSet(domain.ResourceLoads, domain.ResourceParties)
	// PartyReads: a customer, vendor, carrier, driver or fleet.
	PartyReads = domain.ResourceSet(domain.ResourceParties)
)
