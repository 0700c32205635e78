package reads

// The bounds of the unpaged lists of invoices, statements, locations and
// trailers: the seed, their only writer here, refuses to write past them
// (domain.CheckList), and the query cost prices each list by its bound. They fit
// the largest the reference data holds (a weekly statement of four trips
// has up to 17 lines, a summary invoice of five loads 17) with room, and
// keep docs/graphql.md's dashboard page of 100 statements with line items
// and sub-lines under the default cost limit.
const (
	MaxLocationNotes      = 20
	MaxTrailerNotes       = 20
	MaxTrailerReferences  = 20
	MaxInvoiceLoads       = 20
	MaxInvoiceLineItems   = 64
	MaxInvoicePayments    = 20
	MaxStatementLineItems = 24
	MaxStatementSubLines  = 3
)
