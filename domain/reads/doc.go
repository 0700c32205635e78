// Package reads is the reads area: invoices, settlement statements,
// trailers, locations, users and the loads list as the API reads them, their
// vocabularies and search rules, statement exports, and the store they call.
package reads
