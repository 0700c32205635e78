// Package eventlog is the events area: the stored event log as the events
// API reads it, positions and sealed cursors, resuming after an event, and
// the live subscriptions that replay from the log and follow the stream.
package eventlog
