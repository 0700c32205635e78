package eventlog

import "strconv"

// Position is a place in the outbox's order. Events are ordered by the
// id of the transaction that wrote them (Xact, PostgreSQL's xid8), then by
// their row number (Seq). Readers only see events whose writing transaction
// id is below every transaction still running, so the order a reader sees
// only ever grows at its end: nothing can later appear before a position a
// reader has passed. Writers of one load lock its row before their first
// write, so one load's events follow the order its writes committed in.
//
// The zero position is before every event.
type Position struct {
	Xact int64
	Seq  int64
}

// Before reports whether p comes before q.
func (p Position) Before(q Position) bool {
	return p.Xact < q.Xact || (p.Xact == q.Xact && p.Seq < q.Seq)
}

// String renders p as "<xact>.<seq>", for logs and tests; clients only
// ever see it sealed (Cursors).
func (p Position) String() string {
	return strconv.FormatInt(p.Xact, 10) + "." + strconv.FormatInt(p.Seq, 10)
}
