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
