package webhooks

import "time"

// AfterFailedAttempt is the policy for an Active webhook after one of its
// attempts failed: it is disabled when the endpoint answered 410 Gone, or
// when every delivery has failed since failingSince for AutoDisableAfter.
// It returns the state to move to and the reason shown to the user; disable
// is false when the webhook stays Active. Storage only records the outcome.
func AfterFailedAttempt(gone bool, failingSince, at time.Time) (to State, reason string, disable bool) {
	var trigger Trigger
	switch {
	case gone:
		trigger, reason = TriggerEndpointGone, "disabled: the endpoint answered 410 Gone"
	case !failingSince.IsZero() && at.Sub(failingSince) >= AutoDisableAfter:
		trigger, reason = TriggerFailingTooLong, "disabled: every delivery failed for 5 days"
	default:
		return WebhookActive, "", false
	}
	to, _, err := NextState(WebhookActive, trigger)
	if err != nil {
		return WebhookActive, "", false // the state machine has no such move: stay
	}
	return to, reason, true
}

// AttemptResult is what one attempt at a delivery came to.
type AttemptResult struct {
	Delivered bool
	Gone      bool // the endpoint answered 410 Gone
	// NextAttemptAt is the retry schedule's next attempt (NextRetry); nil
	// when the chain is spent.
	NextAttemptAt *time.Time
	At            time.Time
}

// AttemptDecision is what follows one attempt, for the delivery and its
// webhook; storage saves it as decided.
type AttemptDecision struct {
	// Status is DeliveryDelivered, DeliveryPending (a retry at
	// NextAttemptAt) or DeliveryFailed.
	Status        string
	NextAttemptAt *time.Time
	// FailingSince is the webhook's failing_since as this attempt sees it:
	// nil once the endpoint answers, otherwise since when its deliveries
	// have failed. The store keeps an earlier time already recorded
	// (storage's recordAttempt, atomic with concurrent attempts).
	FailingSince *time.Time
	// Disable moves the webhook from From (Active) to To, shown with
	// Reason; a webhook no longer in From (changed meanwhile) stays.
	Disable  bool
	From, To State
	Reason   string
	// BringForward: the endpoint answers again, so its other waiting
	// retries are brought forward (RecoverySchedule).
	BringForward bool
}

// DecideAttempt decides a delivery after one of its attempts. chainAttempt
// is the attempt's number in its retry chain, failingSince the webhook's
// when the attempt was claimed. A delivered attempt clears the webhook's
// failure; when the endpoint had been failing or this was a retry, the
// endpoint is back and its waiting retries come forward. A failed one
// retries on schedule, fails the delivery when the chain is spent or the
// endpoint is gone, and may disable the webhook (AfterFailedAttempt).
func DecideAttempt(r AttemptResult, chainAttempt int, failingSince *time.Time) AttemptDecision {
	if r.Delivered {
		return AttemptDecision{Status: DeliveryDelivered, BringForward: failingSince != nil || chainAttempt > 1}
	}
	d := AttemptDecision{Status: DeliveryPending, NextAttemptAt: r.NextAttemptAt, FailingSince: failingSince}
	if r.NextAttemptAt == nil || r.Gone {
		d.Status, d.NextAttemptAt = DeliveryFailed, nil
	}
	if d.FailingSince == nil {
		at := r.At
		d.FailingSince = &at
	}
	d.To, d.Reason, d.Disable = AfterFailedAttempt(r.Gone, *d.FailingSince, r.At)
	if d.Disable {
		d.From = WebhookActive
	}
	return d
}
