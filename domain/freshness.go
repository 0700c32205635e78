package domain

// Resource is a kind of tenant data that answers are computed from. Every
// write to one of its tables, by any writer, bumps the tenant's version of
// it in the writing transaction (storage's migration names the tables), so
// an answer remembered with the versions it was computed at is exact while
// they are unchanged.
type Resource uint8

// The resources, in the order of Versions.
const (
	ResourceInvoices   Resource = iota // invoices and their line items, loads, payments
	ResourceStatements                 // settlement statements, line items, sub-lines
	ResourceTrailers                   // trailers
	ResourceLocations                  // locations and their notes
	ResourceUsers                      // users
	ResourceLoads                      // loads, stops, trips, documents
	ResourceParties                    // customers, vendors, carriers, drivers, trucks, fleets, subsidiaries
	NumResources
)

// ResourceNames are the resources' names (their columns in storage).
var ResourceNames = [NumResources]string{"invoices", "statements", "trailers", "locations", "users", "loads", "parties"}

// Resources is a set of resources.
type Resources uint16

// ResourceSet is the set of rs.
func ResourceSet(rs ...Resource) Resources {
	var s Resources
	for _, r := range rs {
		s |= 1 << r
	}
	return s
}

// Has reports whether r is in s.
func (s Resources) Has(r Resource) bool { return s&(1<<r) != 0 }

// Versions are one tenant's versions of every resource, read together:
// equal versions of a resource mean the same committed writes of it.
type Versions [NumResources]int64
