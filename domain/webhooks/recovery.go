package webhooks

import (
	"context"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// When an attempt to an endpoint succeeds, the endpoint is back: its other
// pending retries are brought forward instead of waiting for their schedule
// (a receiver down for 30 s would otherwise wait for the +5 min retry). The
// pace is bounded so a recovering receiver is not flooded: at most
// RecoveryBurst of its deliveries are due within RecoveryWindow, spaced
// RecoveryWindow/RecoveryBurst apart; every later success tops that up.
const (
	RecoveryBurst  = 50
	RecoveryWindow = time.Second
)

// RecoverySlots returns when the deliveries brought forward after a success
// at now are due: n slots, RecoveryWindow/RecoveryBurst apart from now, where
// n is what the window still has room for (dueSoon are already due within
// it).
func RecoverySlots(now time.Time, dueSoon int) []time.Time {
	n := RecoveryBurst - dueSoon
	if n <= 0 {
		return nil
	}
	step := RecoveryWindow / RecoveryBurst
	out := make([]time.Time, n)
	for i := range out {
		out[i] = now.Add(time.Duration(dueSoon+i) * step)
	}
	return out
}

// RecoverySchedule brings retries forward after a success at now: waiting
// are the endpoint's retries due beyond the recovery window, earliest first,
// and dueSoon those already due within it. The first waiting ones get the
// window's free RecoverySlots, in order; the rest keep their schedule.
func RecoverySchedule(now time.Time, dueSoon int, waiting []uuid.UUID) map[uuid.UUID]time.Time {
	slots := RecoverySlots(now, dueSoon)
	out := make(map[uuid.UUID]time.Time, min(len(slots), len(waiting)))
	for i := 0; i < len(slots) && i < len(waiting); i++ {
		out[waiting[i]] = slots[i]
	}
	return out
}

// MaxRecoverAge bounds recover's since: delivery history is kept 30 days.
const MaxRecoverAge = 30 * 24 * time.Hour

// Recover re-queues every failed delivery of the webhook created at or after
// since (Svix's recover): each is due now and starts a fresh retry chain. It
// returns how many were re-queued. They are sent while the webhook is Active.
func (s *Service) Recover(ctx context.Context, webhookID uuid.UUID, since time.Time) (int, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return 0, err
	}
	now := s.now()
	var v domain.Validation
	switch {
	case since.IsZero():
		v.Add("since", "since is required")
	case since.After(now):
		v.Add("since", "since must not be in the future")
	case now.Sub(since) > MaxRecoverAge:
		v.Add("since", "since must be within the last 30 days (delivery history is kept 30 days)")
	}
	if err := v.Err(); err != nil {
		return 0, err
	}
	if _, err := s.find(ctx, tenantID, webhookID); err != nil {
		return 0, err
	}
	return s.Store.RecoverDeliveries(ctx, tenantID, webhookID, since, now)
}
