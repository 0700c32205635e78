package apptest

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
)

// recordingTB keeps what a test would have reported.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// The check fails the test at the first payload that does not match, says
// how many did at the end, lets matching ones through silently, and still
// calls the hook the test set.
func TestEmittedCheckFailsOnMismatch(t *testing.T) {
	t.Parallel()
	rec := &recordingTB{TB: t}
	var passed []string
	cfg := app.Config{EmittedEvent: func(channel, _ string, _ []byte) { passed = append(passed, channel) }}
	c := checkEmitted(rec, &cfg)
	cfg.EmittedEvent(eventschema.ChannelWebhook, domain.EventWebhookVerification, []byte(`{"type":"webhook.verification","challenge":"c"}`))
	if len(rec.errors) != 0 {
		t.Fatalf("a matching payload was reported: %v", rec.errors)
	}
	cfg.EmittedEvent(eventschema.ChannelEventsAPI, domain.EventLoadChanged, []byte(`{"id":"x","data":{"load":{}}}`))
	cfg.EmittedEvent(eventschema.ChannelGraphQLSSE, domain.EventLoadChanged, []byte(`{"data":{"loadChanged":{"id":7}}}`))
	if len(rec.errors) != 1 || !strings.Contains(rec.errors[0], "eventsApi load.changed") {
		t.Fatalf("first mismatch: %v", rec.errors)
	}
	c.End()
	if len(rec.errors) != 2 || !strings.Contains(rec.errors[1], "2 emitted events") {
		t.Fatalf("at the end: %v", rec.errors)
	}
	if got := c.Checked(); got[eventschema.ChannelWebhook] != 1 || got[eventschema.ChannelEventsAPI] != 1 || got[eventschema.ChannelGraphQLSSE] != 1 || len(passed) != 3 {
		t.Fatalf("checked %v, passed on %v", got, passed)
	}
}
