package loads

import (
	"github.com/haulgraph/haulgraph/domain"
	"slices"
	"strings"
)

// loadTransitions is the load status machine (docs/api-contract.md §3.2 leaves it open; this
// table is the contract): from each status, the statuses a write may move to.
// Only Open, Covered or Dispatched loads can be cancelled; TONU (truck ordered,
// not used) follows a dispatch; Delivered and TONU are final; a cancelled load
// can be reopened.
var loadTransitions = map[domain.LoadStatus][]domain.LoadStatus{
	domain.LoadOpen:       {domain.LoadQuoted, domain.LoadReserved, domain.LoadCovered, domain.LoadCancelled},
	domain.LoadQuoted:     {domain.LoadOpen, domain.LoadReserved, domain.LoadCovered},
	domain.LoadReserved:   {domain.LoadOpen, domain.LoadCovered},
	domain.LoadCovered:    {domain.LoadOpen, domain.LoadDispatched, domain.LoadCancelled},
	domain.LoadDispatched: {domain.LoadCovered, domain.LoadInTransit, domain.LoadCancelled, domain.LoadTONU},
	domain.LoadInTransit:  {domain.LoadDelivered},
	domain.LoadDelivered:  {},
	domain.LoadCancelled:  {domain.LoadOpen},
	domain.LoadTONU:       {},
}

// initialLoadStatuses are the statuses a load may be created in.
var initialLoadStatuses = []domain.LoadStatus{domain.LoadOpen, domain.LoadQuoted, domain.LoadReserved}

// NextStatuses lists the statuses a load in status from may move to.
func NextStatuses(from domain.LoadStatus) []domain.LoadStatus { return loadTransitions[from] }

// CheckTransition accepts from → to, or returns the BAD_USER_INPUT error
// naming the allowed next states.
func CheckTransition(from, to domain.LoadStatus) error {
	if !slices.Contains(domain.LoadStatuses, to) {
		return &domain.Error{Code: domain.CodeInvalid, Message: "unknown load status " + domain.Quote(string(to)),
			Fields: map[string][]string{"status": {"status must be one of " + joinStatuses(domain.LoadStatuses)}}}
	}
	next := loadTransitions[from]
	if slices.Contains(next, to) {
		return nil
	}
	allowed := "none: " + string(from) + " is final"
	if len(next) > 0 {
		allowed = joinStatuses(next)
	}
	return &domain.Error{Code: domain.CodeInvalid,
		Message: "a " + string(from) + " load cannot become " + string(to) + "; allowed next statuses: " + allowed,
		Fields:  map[string][]string{"status": {"allowed next statuses from " + string(from) + ": " + allowed}}}
}

func joinStatuses(s []domain.LoadStatus) string {
	parts := make([]string, len(s))
	for i, v := range s {
		parts[i] = string(v)
	}
	return strings.Join(parts, ", ")
}
