package domain

import (
	"fmt"
	"strconv"
	"strings"
)

// EventPosition is a place in the outbox's order. Events are ordered by the
// id of the transaction that wrote them (Xact, PostgreSQL's xid8), then by
// their row number (Seq). Readers only see events whose writing transaction
// id is below every transaction still running, so the order a reader sees
// only ever grows at its end: nothing can later appear before a position a
// reader has passed. Writers of one load lock its row before their first
// write, so one load's events follow the order its writes committed in.
//
// The zero position is before every event.
type EventPosition struct {
	Xact int64
	Seq  int64
}

// Before reports whether p comes before q.
func (p EventPosition) Before(q EventPosition) bool {
	return p.Xact < q.Xact || (p.Xact == q.Xact && p.Seq < q.Seq)
}

// String renders p as a cursor, "<xact>.<seq>" (ParseEventPosition reads it).
func (p EventPosition) String() string {
	return strconv.FormatInt(p.Xact, 10) + "." + strconv.FormatInt(p.Seq, 10)
}

// ParseEventPosition reads a cursor written by EventPosition.String.
func ParseEventPosition(s string) (EventPosition, error) {
	x, q, ok := strings.Cut(s, ".")
	if ok {
		xact, err1 := strconv.ParseInt(x, 10, 64)
		seq, err2 := strconv.ParseInt(q, 10, 64)
		if err1 == nil && err2 == nil && xact >= 0 && seq >= 0 {
			return EventPosition{Xact: xact, Seq: seq}, nil
		}
	}
	return EventPosition{}, fmt.Errorf("invalid event position %q", s)
}
