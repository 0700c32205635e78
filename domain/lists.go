package domain

import "fmt"

// MaxDiffChanges bounds data.diff.changes: a write names each Field at most
// once.
var MaxDiffChanges = len(Fields)

// ListFull is the refusal of a write that would put more than max
// elements in a bounded list (what, of owner): 409, and nothing is
// written. Every unpaged list of the API has such a bound, and the query
// cost prices the list by it.
func ListFull(what, owner string, max int) error {
	return &Error{Code: CodeConflict, Message: fmt.Sprintf("%s holds at most %d %s", owner, max, what)}
}

// CheckList refuses n elements in a list bounded by max (ListFull).
func CheckList(what, owner string, n, max int) error {
	if n > max {
		return ListFull(what, owner, max)
	}
	return nil
}
