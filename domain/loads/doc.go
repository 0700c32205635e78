// Package loads is the loads area: creating and changing loads and trips,
// the status transitions, the references a write may make, the diffs and
// load.changed/trip.changed events a write emits, and the store it calls.
package loads
