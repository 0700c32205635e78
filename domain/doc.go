// Package domain is the base the areas share: errors and their codes, the
// principal and its scopes, money, decimals and dates, the text, id and
// paging rules, the event envelope, tenants, and the entities and
// vocabularies several areas read (loads, trips, drivers, documents). Each
// area's rules, service and store port live in its own package under
// domain/ (documents, eventlog, loads, reads, webhooks), over this base
// alone. None of them knows HTTP, SQL or GraphQL: REST and GraphQL share
// every rule by calling into them.
package domain
