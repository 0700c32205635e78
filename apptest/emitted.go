package apptest

import (
	"sync"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/contract"
)

var validator = sync.OnceValues(contract.NewValidator)

// emittedCheck validates every event payload an instance writes (webhook
// bodies, events API items, subscription results) against the published
// schemas: the first mismatch fails the test at once, and the end of the
// test reports how many there were.
type emittedCheck struct {
	t          testing.TB
	mu         sync.Mutex
	ended      bool
	mismatches int
	checked    map[string]int // by channel
}

// checkEmitted installs the check in cfg, before any hook the test set.
func checkEmitted(t testing.TB, cfg *app.Config) *emittedCheck {
	t.Helper()
	v, err := validator()
	if err != nil {
		t.Fatalf("apptest: the event schemas do not compile: %v", err)
	}
	c := &emittedCheck{t: t, checked: map[string]int{}}
	next := cfg.EmittedEvent
	cfg.EmittedEvent = func(channel, eventType string, body []byte) {
		err := v.Validate(channel, eventType, body)
		c.mu.Lock()
		c.checked[channel]++
		if err != nil {
			c.mismatches++
			if c.mismatches == 1 && !c.ended {
				c.t.Errorf("apptest: an emitted event does not match the published schema: %v\n%s", err, body)
			}
		}
		c.mu.Unlock()
		if next != nil {
			next(channel, eventType, body)
		}
	}
	return c
}

// end reports the mismatches once the instance has stopped.
func (c *emittedCheck) end() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended = true
	if c.mismatches > 1 {
		c.t.Errorf("apptest: %d emitted events did not match the published schema (the first is reported above)", c.mismatches)
	}
}

// Checked is how many payloads each channel emitted and was checked.
func (c *emittedCheck) Checked() map[string]int {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int, len(c.checked))
	for k, v := range c.checked {
		out[k] = v
	}
	return out
}
