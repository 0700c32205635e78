package webhooks

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
)

// claimStore answers claims with what it holds and keeps what is recorded.
type claimStore struct {
	DeliveryStore // the methods a test does not use are nil
	claimed       []ClaimedDelivery
	lease         time.Time
	logs          []AttemptLog
	decisions     []AttemptDecision
	horizon       time.Time
	limit         int
}

func (s *claimStore) ClaimDeliveries(_ context.Context, now, leaseUntil time.Time, limit int) ([]ClaimedDelivery, error) {
	s.lease = leaseUntil
	return s.claimed, nil
}

func (s *claimStore) RecordAttempt(_ context.Context, _ ClaimedDelivery, l AttemptLog, d AttemptDecision) (bool, error) {
	s.logs, s.decisions = append(s.logs, l), append(s.decisions, d)
	return true, nil
}

func (s *claimStore) BringForward(_ context.Context, _ uuid.UUID, horizon time.Time, limit int,
	plan func(int, []uuid.UUID) map[uuid.UUID]time.Time) error {
	s.horizon, s.limit = horizon, limit
	return nil
}

// A claim is leased past the attempt's timeout, and keeps a previous
// secret only while its rotation lasts.
func TestClaimLeasesAndDropsAnEndedRotation(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	later, earlier := now.Add(time.Hour), now.Add(-time.Second)
	s := &claimStore{claimed: []ClaimedDelivery{
		{PreviousSecret: "whsec_old", PreviousSecretExpires: &later},
		{PreviousSecret: "whsec_old", PreviousSecretExpires: &earlier},
		{PreviousSecret: "whsec_old"},
	}}
	svc := &Deliveries{Store: s, Now: func() time.Time { return now }, Timeout: 10 * time.Second}
	got, err := svc.Claim(context.Background(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].PreviousSecret != "whsec_old" || got[1].PreviousSecret != "" || got[2].PreviousSecret != "" {
		t.Errorf("previous secrets %q, %q, %q: want it kept inside the rotation only", got[0].PreviousSecret, got[1].PreviousSecret, got[2].PreviousSecret)
	}
	if !s.lease.After(now.Add(10 * time.Second)) {
		t.Errorf("leased until %s: not past the attempt's timeout", s.lease)
	}
}

// What an attempt's answer becomes: the log line, the decision, and the
// recovery of an endpoint that answers again.
func TestRecordDecidesFromTheAnswer(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := &claimStore{}
	svc := &Deliveries{Store: s, Schedule: []time.Duration{time.Minute}}
	c := ClaimedDelivery{ChainAttempt: 1}
	for _, sent := range []Sent{{Status: 503, At: at}, {Status: 410, At: at}, {Err: "no answer", At: at}} {
		if err := svc.Record(context.Background(), c, sent); err != nil {
			t.Fatal(err)
		}
	}
	if d := s.decisions[0]; d.Status != DeliveryPending || !d.NextAttemptAt.Equal(at.Add(time.Minute)) || s.logs[0].Error != "status 503" {
		t.Errorf("503: %s at %v logged %q, want a retry in a minute logged as the status", d.Status, d.NextAttemptAt, s.logs[0].Error)
	}
	if d := s.decisions[1]; d.Status != DeliveryFailed || !d.Disable || d.From != WebhookActive || d.To != WebhookDisabled {
		t.Errorf("410: %+v, want Failed and the webhook disabled from Active", d)
	}
	if d := s.decisions[2]; d.Status != DeliveryPending || s.logs[2].StatusCode != nil || s.logs[2].Error != "no answer" {
		t.Errorf("no answer: %s logged %v %q", d.Status, s.logs[2].StatusCode, s.logs[2].Error)
	}
	if !s.horizon.IsZero() {
		t.Fatal("retries brought forward after failures")
	}
	if err := svc.Record(context.Background(), ClaimedDelivery{ChainAttempt: 2}, Sent{Status: 204, At: at}); err != nil {
		t.Fatal(err)
	}
	if s.decisions[3].Status != DeliveryDelivered || !s.horizon.Equal(at.Add(RecoveryWindow)) || s.limit != RecoveryBurst {
		t.Errorf("delivered on a retry: %s, brought forward up to %s (%d): want the recovery window and burst", s.decisions[3].Status, s.horizon, s.limit)
	}
}
