package domain

import (
	"slices"
	"strings"
)

// Scope is a permission of the form <entity>:<permission> (docs/api-contract.md §5.3).
type Scope string

// Scopes the API checks (each area declares the scope of its operations;
// docs/architecture.md, "Scopes").
const (
	ScopeInvoiceRead   Scope = "invoice:read"
	ScopeDriverRead    Scope = "driver:read"
	ScopeTrailerRead   Scope = "trailer:read"
	ScopeCustomerRead  Scope = "customer:read"
	ScopeUserRead      Scope = "user:read"
	ScopeLoadRead      Scope = "load:read"
	ScopeLoadCreate    Scope = "load:create"
	ScopeLoadUpdate    Scope = "load:update"
	ScopeTripRead      Scope = "trip:read"
	ScopeTripUpdate    Scope = "trip:update"
	ScopeDriverUpdate  Scope = "driver:update"
	ScopeCarrierUpdate Scope = "carrier:update"
	ScopeWebhookManage Scope = "webhook:manage"
)

// scopeEntities lists docs/api-contract.md §5.3's entities with their permissions.
var scopeEntities = []struct {
	entity string
	perms  []string
}{
	{"customer", crud}, {"driver", crud}, {"fuel", crud}, {"invoice", crud}, {"load", crud},
	{"maintenance", crud}, {"toll", crud}, {"trailer", crud}, {"trip", crud}, {"truck", crud},
	{"user", crud}, {"visibility", crud}, {"dispatch", []string{"read", "update"}}, {"carrier", crud},
	{"webhook", []string{"manage"}},
}

var crud = []string{"read", "create", "update", "delete"}

// ScopeCatalogue is every grantable scope, in the API contract's order (§5.3).
var ScopeCatalogue = func() []Scope {
	var out []Scope
	for _, e := range scopeEntities {
		for _, p := range e.perms {
			out = append(out, Scope(e.entity+":"+p))
		}
	}
	return out
}()

// ReadScopes are the scopes a legacy token without a scope claim acts with
// (docs/api-contract.md §5.4): every ":read" scope.
var ReadScopes = func() []Scope {
	var out []Scope
	for _, s := range ScopeCatalogue {
		if strings.HasSuffix(string(s), ":read") {
			out = append(out, s)
		}
	}
	return out
}()

// KnownScope reports whether s is in the catalogue.
func KnownScope(s Scope) bool { return slices.Contains(ScopeCatalogue, s) }

// ParseScopes splits a space-separated scope string, dropping empties.
func ParseScopes(s string) []Scope {
	var out []Scope
	for _, f := range strings.Fields(s) {
		out = append(out, Scope(f))
	}
	return out
}

// JoinScopes renders scopes as the space-separated scope claim.
func JoinScopes(scopes []Scope) string {
	parts := make([]string, len(scopes))
	for i, s := range scopes {
		parts[i] = string(s)
	}
	return strings.Join(parts, " ")
}

// Operation is an API operation and the scope it needs. Each area declares
// its own (reads.OpReadInvoice, loads.OpCreateLoad, ...); REST routes and
// GraphQL fields call the area's service, which authorizes the operation.
type Operation struct {
	Name  string // "invoice.read": what the operation is, for tests and messages
	Scope Scope  // "" means any valid token
}
