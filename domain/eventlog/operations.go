package eventlog

import "github.com/haulgraph/haulgraph/domain"

// OpListEvents is the events API: its scope depends on the event type
// (TypeScope), so the operation asks only for a valid token.
var OpListEvents = domain.Operation{Name: "event.list"}
