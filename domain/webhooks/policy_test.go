package webhooks

import (
	"testing"
	"time"

	"github.com/google/uuid"
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

func TestDecideAttempt(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	next := at.Add(5 * time.Minute)
	earlier, longAgo := at.Add(-time.Hour), at.Add(-AutoDisableAfter)
	for _, c := range []struct {
		name         string
		r            AttemptResult
		chain        int
		failingSince *time.Time
		status       string
		next         *time.Time
		failing      *time.Time
		disable      bool
		forward      bool
	}{
		{"delivered first try to a healthy endpoint", AttemptResult{Delivered: true, At: at}, 1, nil, DeliveryDelivered, nil, nil, false, false},
		{"delivered on a retry", AttemptResult{Delivered: true, At: at}, 2, nil, DeliveryDelivered, nil, nil, false, true},
		{"delivered to a failing endpoint", AttemptResult{Delivered: true, At: at}, 1, &earlier, DeliveryDelivered, nil, nil, false, true},
		{"first failure retries", AttemptResult{NextAttemptAt: &next, At: at}, 1, nil, DeliveryPending, &next, &at, false, false},
		{"failure keeps the first failure's time", AttemptResult{NextAttemptAt: &next, At: at}, 3, &earlier, DeliveryPending, &next, &earlier, false, false},
		{"chain spent fails", AttemptResult{At: at}, 8, &earlier, DeliveryFailed, nil, &earlier, false, false},
		{"gone fails and disables", AttemptResult{Gone: true, NextAttemptAt: &next, At: at}, 1, nil, DeliveryFailed, nil, &at, true, false},
		{"failing five days disables", AttemptResult{NextAttemptAt: &next, At: at}, 2, &longAgo, DeliveryPending, &next, &longAgo, true, false},
	} {
		d := DecideAttempt(c.r, c.chain, c.failingSince)
		if d.Status != c.status || !sameTime(d.NextAttemptAt, c.next) || !sameTime(d.FailingSince, c.failing) ||
			d.Disable != c.disable || d.BringForward != c.forward || (d.Disable && d.To != WebhookDisabled) {
			t.Errorf("%s: %+v", c.name, d)
		}
	}
}

func sameTime(a, b *time.Time) bool {
	return (a == nil) == (b == nil) && (a == nil || a.Equal(*b))
}

func TestRecoverySchedule(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	step := RecoveryWindow / RecoveryBurst
	waiting := []uuid.UUID{uuid.New(), uuid.New(), uuid.New()}
	got := RecoverySchedule(now, RecoveryBurst-2, waiting)
	if len(got) != 2 || !got[waiting[0]].Equal(now.Add(time.Duration(RecoveryBurst-2)*step)) ||
		!got[waiting[1]].Equal(now.Add(time.Duration(RecoveryBurst-1)*step)) {
		t.Errorf("two free slots: %v", got)
	}
	if got := RecoverySchedule(now, RecoveryBurst, waiting); len(got) != 0 {
		t.Errorf("a full window moves nothing: %v", got)
	}
	if got := RecoverySchedule(now, 0, waiting); len(got) != 3 || !got[waiting[2]].Equal(now.Add(2*step)) {
		t.Errorf("an empty window takes every waiting retry in order: %v", got)
	}
}
