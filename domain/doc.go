// Package domain holds HaulGraph's entities, value types, vocabularies,
// validation rules, scope catalogue and the ports that storage implements.
// It knows nothing of HTTP, SQL or GraphQL: REST and GraphQL share every rule
// by calling into this package.
package domain
