package domain

import (
	"slices"
	"strings"
)

// loadTransitions is the load status machine (docs/api-contract.md §3.2 leaves it open; this
// table is the contract): from each status, the statuses a write may move to.
// Only Open, Covered or Dispatched loads can be cancelled; TONU (truck ordered,
// not used) follows a dispatch; Delivered and TONU are final; a cancelled load
// can be reopened.
var loadTransitions = map[LoadStatus][]LoadStatus{
	LoadOpen:       {LoadQuoted, LoadReserved, LoadCovered, LoadCancelled},
	LoadQuoted:     {LoadOpen, LoadReserved, LoadCovered},
	LoadReserved:   {LoadOpen, LoadCovered},
	LoadCovered:    {LoadOpen, LoadDispatched, LoadCancelled},
	LoadDispatched: {LoadCovered, LoadInTransit, LoadCancelled, LoadTONU},
	LoadInTransit:  {LoadDelivered},
	LoadDelivered:  {},
	LoadCancelled:  {LoadOpen},
	LoadTONU:       {},
}

// initialLoadStatuses are the statuses a load may be created in.
var initialLoadStatuses = []LoadStatus{LoadOpen, LoadQuoted, LoadReserved}

// NextLoadStatuses lists the statuses a load in status from may move to.
func NextLoadStatuses(from LoadStatus) []LoadStatus { return loadTransitions[from] }

// CheckLoadTransition accepts from → to, or returns the BAD_USER_INPUT error
// naming the allowed next states.
func CheckLoadTransition(from, to LoadStatus) error {
	if !slices.Contains(LoadStatuses, to) {
		return &Error{Code: CodeInvalid, Message: "unknown load status " + Quote(string(to)),
			Fields: map[string][]string{"status": {"status must be one of " + joinStatuses(LoadStatuses)}}}
	}
	next := loadTransitions[from]
	if slices.Contains(next, to) {
		return nil
	}
	allowed := "none: " + string(from) + " is final"
	if len(next) > 0 {
		allowed = joinStatuses(next)
	}
	return &Error{Code: CodeInvalid,
		Message: "a " + string(from) + " load cannot become " + string(to) + "; allowed next statuses: " + allowed,
		Fields:  map[string][]string{"status": {"allowed next statuses from " + string(from) + ": " + allowed}}}
}

func joinStatuses(s []LoadStatus) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}
