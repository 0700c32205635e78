package apptest

import (
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/contract/emitted"
)

// checkEmitted installs the check of emitted payloads in cfg, before any
// hook the test set: the outbox's envelopes (every emitter, the CLI's
// trigger through the API included), webhook bodies, events API items and
// subscription results.
func checkEmitted(t testing.TB, cfg *app.Config) *emitted.Check {
	t.Helper()
	c := emitted.New(t)
	cfg.EmittedEvent = c.Hook(cfg.EmittedEvent)
	return c
}
