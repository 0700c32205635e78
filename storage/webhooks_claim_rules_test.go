package storage

import (
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// TestClaimSendsForDeliveringStatesOnly: claimDeliveries, where "only an
// Active webhook delivers" runs (atomically with the claim), selects
// exactly the states webhooks.State.Delivering names.
func TestClaimSendsForDeliveringStatesOnly(t *testing.T) {
	t.Parallel()
	for _, s := range []webhooks.State{webhooks.WebhookDisabled, webhooks.WebhookPending, webhooks.WebhookActive, webhooks.WebhookFailedVerification} {
		if inSQL := strings.Contains(claimDeliveries, "w.state = "+sqlLiteral(s)); inSQL != s.Delivering() {
			t.Errorf("state %s: claimDeliveries selects it %v, Delivering says %v", s, inSQL, s.Delivering())
		}
	}
}
