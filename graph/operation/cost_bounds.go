package operation

import (
	"strings"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/domain/loads"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// listBounds are the schema's unpaged lists, each priced by the bound the
// domain holds it to (a load holds up to 100 stops: pricing them 5 let a
// page of events return 70 times what it was charged). Every unpaged list
// of an object type is here (TestEveryUnpagedListHasABound).
var listBounds = map[string]int{
	"Load.stops":                    loads.MaxStops,
	"Load.trips":                    loads.MaxTrips,
	"Trip.drivers":                  loads.MaxTripDrivers,
	"Query.webhooks":                webhooks.MaxPerTenant,
	"Query.eventDestinations":       webhooks.MaxPerTenant,
	"WebhookDelivery.attempts":      webhooks.MaxDeliveryAttempts,
	"Load.documents":                documents.MaxPerParent,
	"Trip.documents":                documents.MaxPerParent,
	"Driver.documents":              documents.MaxPerParent,
	"Carrier.documents":             documents.MaxPerParent,
	"EventDiff.changes":             domain.MaxDiffChanges,
	"Invoice.lineItems":             reads.MaxInvoiceLineItems,
	"Invoice.loads":                 reads.MaxInvoiceLoads,
	"Invoice.payments":              reads.MaxInvoicePayments,
	"SettlementStatement.lineItems": reads.MaxStatementLineItems,
	"StatementLineItem.subLines":    reads.MaxStatementSubLines,
	"Location.notes":                reads.MaxLocationNotes,
	"Trailer.notes":                 reads.MaxTrailerNotes,
	"Trailer.references":            reads.MaxTrailerReferences,
}

// listBound is how many elements the unpaged list field (Type.field) may
// return: its domain bound; introspection's lists, which the schema
// bounds, are priced nestedListSize. A list missing from listBounds is
// priced as if it were a page of the most a page holds, never as small.
func listBound(field string) int {
	if n, ok := listBounds[field]; ok {
		return n
	}
	if strings.HasPrefix(field, "__") {
		return nestedListSize
	}
	return domain.MaxPageSize
}
