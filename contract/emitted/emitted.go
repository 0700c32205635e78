// Package emitted is the tests' check of emitted events: every payload an
// instance or a store writes (outbox envelopes, webhook bodies, events API
// items, subscription results) is validated against the published schemas
// (contract.Validator). apptest installs it in every instance, dbtest in
// every database it opens, so no emitter escapes it.
package emitted

import (
	"sync"
	"testing"

	"github.com/haulgraph/haulgraph/contract"
	"github.com/haulgraph/haulgraph/contract/eventschema"
)

var validator = sync.OnceValues(contract.NewValidator)

// Check counts and validates payloads for one test: the first mismatch
// fails the test at once, End reports how many there were.
type Check struct {
	t          testing.TB
	v          *contract.Validator
	mu         sync.Mutex
	ended      bool
	mismatches int
	checked    map[string]int // by channel
}

// New is a check that reports to t.
func New(t testing.TB) *Check {
	t.Helper()
	v, err := validator()
	if err != nil {
		t.Fatalf("emitted: the event schemas do not compile: %v", err)
	}
	return &Check{t: t, v: v, checked: map[string]int{}}
}

// Hook is the EmitFunc that validates each payload, then passes it to next
// (when set).
func (c *Check) Hook(next eventschema.EmitFunc) eventschema.EmitFunc {
	return func(channel, eventType string, body []byte) {
		err := c.v.Validate(channel, eventType, body)
		c.mu.Lock()
		c.checked[channel]++
		if err != nil {
			c.mismatches++
			if c.mismatches == 1 && !c.ended {
				c.t.Errorf("an emitted event does not match the published schema: %v\n%s", err, body)
			}
		}
		c.mu.Unlock()
		if next != nil {
			next(channel, eventType, body)
		}
	}
}

// End reports the mismatches once the emitters have stopped; later
// payloads are still counted, never reported.
func (c *Check) End() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.mismatches > 1 {
		c.t.Errorf("%d emitted events did not match the published schema (the first is reported above)", c.mismatches)
	}
}

// Checked is how many payloads each channel emitted and was checked.
func (c *Check) Checked() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.checked))
	for k, v := range c.checked {
		out[k] = v
	}
	return out
}
