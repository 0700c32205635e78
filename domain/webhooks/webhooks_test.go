package webhooks

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// TestWebhookStateMachineSpecRows checks every row of docs/api-contract.md §3.1.
func TestWebhookStateMachineSpecRows(t *testing.T) {
	t.Parallel()
	rows := []struct {
		from    State
		trigger Trigger
		to      State
		verify  bool
	}{
		{"", TriggerCreated, WebhookPending, false},
		{WebhookDisabled, TriggerEnable, WebhookPending, true},
		{WebhookPending, TriggerEnable, WebhookPending, true},
		{WebhookFailedVerification, TriggerEnable, WebhookPending, true}, // behaves as Disabled
		{WebhookPending, TriggerVerified, WebhookActive, false},
		{WebhookPending, TriggerVerificationFailed, WebhookFailedVerification, false},
		{WebhookActive, TriggerURLChanged, WebhookPending, true},
		{WebhookActive, TriggerEventsChanged, WebhookActive, false},
		{WebhookActive, TriggerPreviousAttrChanged, WebhookActive, false},
		{WebhookActive, TriggerSecretRegenerated, WebhookActive, false},
		{WebhookDisabled, TriggerDisable, WebhookDisabled, false},
		{WebhookPending, TriggerDisable, WebhookDisabled, false},
		{WebhookActive, TriggerDisable, WebhookDisabled, false},
		{WebhookFailedVerification, TriggerDisable, WebhookDisabled, false},
		{WebhookActive, TriggerEndpointGone, WebhookDisabled, false},
		{WebhookActive, TriggerFailingTooLong, WebhookDisabled, false},
	}
	for _, r := range rows {
		to, verify, err := NextState(r.from, r.trigger)
		if err != nil || to != r.to || verify != r.verify {
			t.Errorf("%q + %q = %q verify=%v err=%v; want %q verify=%v", r.from, r.trigger, to, verify, err, r.to, r.verify)
		}
	}
	// Refused: verification results outside Pending never activate.
	for _, from := range []State{WebhookActive} {
		if _, _, err := NextState(from, TriggerVerificationFailed); domain.CodeOf(err) != domain.CodeConflict {
			t.Errorf("%s + verification failed: %v, want CONFLICT", from, err)
		}
	}
	if to, _, _ := NextState(WebhookDisabled, TriggerVerified); to != WebhookDisabled {
		t.Errorf("a late verification answer after a manual disable activated the webhook: %s", to)
	}
	if _, _, err := NextState(WebhookActive, TriggerCreated); err == nil {
		t.Error("created from Active was allowed")
	}
	if WebhookActive.Label() != "Connected" || WebhookFailedVerification.Delivering() || !WebhookActive.Delivering() {
		t.Error("labels / delivering wrong")
	}
}

func TestValidateWebhookInputFieldErrors(t *testing.T) {
	t.Parallel()
	str := func(s string) *string { return &s }
	sub := uuid.New()
	cases := []struct {
		name    string
		in      Input
		dev     bool
		field   string
		message string
	}{
		{"no name", Input{Name: str(" "), URL: str("https://example.com/h"), EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub}, false, "name", "required"},
		{"http url", Input{Name: str("n"), URL: str("http://example.com/h"), EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub}, false, "url", "https"},
		{"no event", Input{Name: str("n"), URL: str("https://example.com/h"), EventTypes: []string{}, SubsidiaryID: &sub}, false, "eventTypes", "at least one"},
		{"unknown event", Input{Name: str("n"), URL: str("https://example.com/h"), EventTypes: []string{"load.deleted"}, SubsidiaryID: &sub}, false, "eventTypes", "unknown"},
		{"verification is no subscription", Input{Name: str("n"), URL: str("https://example.com/h"), EventTypes: []string{domain.EventWebhookVerification}, SubsidiaryID: &sub}, false, "eventTypes", "unknown"},
		{"no subsidiary", Input{Name: str("n"), URL: str("https://example.com/h"), EventTypes: []string{domain.EventLoadChanged}}, false, "subsidiaryId", "required"},
		{"private ip", Input{Name: str("n"), URL: str("https://10.1.2.3/h"), EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub}, false, "url", "publicly"},
		{"loopback ip", Input{Name: str("n"), URL: str("https://127.0.0.1:8443/h"), EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub}, false, "url", "publicly"},
		{"localhost", Input{Name: str("n"), URL: str("https://localhost/h"), EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub}, false, "url", "publicly"},
		{"link-local metadata", Input{Name: str("n"), URL: str("https://169.254.169.254/h"), EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub}, true, "url", "publicly"},
		{"private even in dev", Input{Name: str("n"), URL: str("http://192.168.1.1/h"), EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub}, true, "url", "https"},
		{"ipv6 loopback", Input{Name: str("n"), URL: str("https://[::1]/h"), EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub}, false, "url", "publicly"},
		{"credentials", Input{Name: str("n"), URL: str("https://u:p@example.com/h"), EventTypes: []string{domain.EventLoadChanged}, SubsidiaryID: &sub}, false, "url", "credentials"},
	}
	for _, c := range cases {
		err := ValidateInput(c.in, true, c.dev)
		var de *domain.Error
		if !errors.As(err, &de) || de.Code != domain.CodeInvalid {
			t.Errorf("%s: err = %v, want a validation error", c.name, err)
			continue
		}
		msgs := strings.Join(de.Fields[c.field], "; ")
		if !strings.Contains(msgs, c.message) {
			t.Errorf("%s: field %s messages %q, want one containing %q (all: %v)", c.name, c.field, msgs, c.message, de.Fields)
		}
	}
	ok := []struct {
		url string
		dev bool
	}{{"https://example.com/hook", false}, {"http://127.0.0.1:9000/h", true}, {"https://127.0.0.1:9000/h", true}, {"https://8.8.8.8/h", false}}
	for _, c := range ok {
		in := Input{Name: str("n"), URL: str(c.url), EventTypes: []string{domain.EventLoadChanged, domain.EventLoadStatusChanged}, SubsidiaryID: &sub}
		if err := ValidateInput(in, true, c.dev); err != nil {
			t.Errorf("%s (dev=%v) refused: %v", c.url, c.dev, err)
		}
	}
}

func TestNewWebhookSecretShape(t *testing.T) {
	t.Parallel()
	a, b := NewSecret(), NewSecret()
	if !strings.HasPrefix(a, "whsec_") || len(a) != len("whsec_")+44 || a == b {
		t.Fatalf("secrets %q %q", a, b)
	}
}
