package webhooks

import (
	"testing"
	"time"
)

func TestAfterFailedAttempt(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name         string
		gone         bool
		failingSince time.Time
		disable      bool
		reason       string
	}{
		{"first failure", false, at, false, ""},
		{"failing 4 days 23 h", false, at.Add(-AutoDisableAfter + time.Hour), false, ""},
		{"failing exactly 5 days", false, at.Add(-AutoDisableAfter), true, "disabled: every delivery failed for 5 days"},
		{"failing 6 days", false, at.Add(-6 * 24 * time.Hour), true, "disabled: every delivery failed for 5 days"},
		{"410 Gone at once", true, at, true, "disabled: the endpoint answered 410 Gone"},
		{"never failing before", false, time.Time{}, false, ""},
	} {
		to, reason, disable := AfterFailedAttempt(c.gone, c.failingSince, at)
		if disable != c.disable || reason != c.reason || (disable && to != WebhookDisabled) || (!disable && to != WebhookActive) {
			t.Errorf("%s: %s %q %v", c.name, to, reason, disable)
		}
	}
}
