package haulgraph_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/sdk/haulgraph"
	"github.com/haulgraph/haulgraph/webhooksig"
)

// The SDK verifies what the server's own signing code produces, for each
// scheme, and refuses tampering, stale timestamps and other keys.
func TestWebhookVerifierAgainstServerSigning(t *testing.T) {
	t.Parallel()
	body := []byte(`{"id":"e-0","type":"load.changed","data":{"load":{"LoadNumber":"LD-1","Rate":{"Amount":123456789.01,"Currency":840}}}}`)
	now := time.Unix(1_763_779_200, 0)
	secret, old := "whsec_"+base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef")), "whsec_"+base64.StdEncoding.EncodeToString([]byte("fedcba9876543210fedcba9876543210"))
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	whsk, whpk := "whsk_"+base64.StdEncoding.EncodeToString(priv), "whpk_"+base64.StdEncoding.EncodeToString(pub)
	otherPub, _, _ := ed25519.GenerateKey(rand.Reader)

	service := http.Header{}
	service.Set("X-Service-Signature", webhooksig.Header(secret, old, now.Unix(), body))
	standard := http.Header{}
	standard.Set("webhook-id", "e-0")
	standard.Set("webhook-timestamp", "1763779200")
	sig, err := webhooksig.StandardSignatures(webhooksig.SignStandard, secret, old, "e-0", now.Unix(), body)
	if err != nil {
		t.Fatal(err)
	}
	standard.Set("webhook-signature", sig)
	ed := standard.Clone()
	edSig, err := webhooksig.SignStandardEd25519(whsk, "e-0", now.Unix(), body)
	if err != nil {
		t.Fatal(err)
	}
	ed.Set("webhook-signature", edSig)

	cases := []struct {
		scheme haulgraph.WebhookSignatureScheme
		h      http.Header
		key    string
		wrong  string
	}{
		{haulgraph.WebhookSignatureSchemeService, service, secret, "whsec_other"},
		{haulgraph.WebhookSignatureSchemeService, service, old, "whsec_other"}, // v0 during a rotation
		{haulgraph.WebhookSignatureSchemeStandardWebhooks, standard, secret, "whsec_" + base64.StdEncoding.EncodeToString([]byte("x"))},
		{haulgraph.WebhookSignatureSchemeStandardWebhooks, standard, old, "whsec_" + base64.StdEncoding.EncodeToString([]byte("x"))},
		{haulgraph.WebhookSignatureSchemeStandardWebhooksEd25519, ed, whpk, "whpk_" + base64.StdEncoding.EncodeToString(otherPub)},
	}
	for _, tc := range cases {
		v := haulgraph.WebhookVerifier{Scheme: tc.scheme, Key: tc.key, Now: func() time.Time { return now.Add(time.Minute) }}
		e, err := v.ConstructEvent(body, tc.h)
		if err != nil || e.Id != "e-0" || e.Data.Load.Rate.Amount.String() != "123456789.01" {
			t.Errorf("%s: %v %+v", tc.scheme, err, e)
		}
		tampered := append([]byte{}, body...)
		tampered[len(tampered)-3] = '9'
		if err := v.Verify(tampered, tc.h); !errors.Is(err, haulgraph.ErrSignatureMismatch) {
			t.Errorf("%s tampered: %v", tc.scheme, err)
		}
		late := v
		late.Now = func() time.Time { return now.Add(6 * time.Minute) }
		if err := late.Verify(body, tc.h); !errors.Is(err, haulgraph.ErrSignatureTimestamp) {
			t.Errorf("%s late: %v", tc.scheme, err)
		}
		other := v
		other.Key = tc.wrong
		if err := other.Verify(body, tc.h); err == nil {
			t.Errorf("%s verified with another key", tc.scheme)
		}
	}
}

// The typed subscriptions replay from an event id and go on live; a cursor
// that is none of the tenant's ends the loop with a typed refusal.
func TestSubscriptionsTyped(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := f.client(t, []domain.Scope{domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeLoadRead, domain.ScopeTripRead, domain.ScopeTripUpdate})
	l, err := c.CreateLoad(ctx, haulgraph.CreateLoadInput{LoadNumber: "TS-1", SubsidiaryID: f.tenant.SubsidiaryID.String(),
		Stops: []haulgraph.StopInput{{Type: "Pickup", Name: "A"}, {Type: "Delivery", Name: "B"}}, Trips: []haulgraph.TripInput{{TripNumber: "TS-1-T"}}})
	if err != nil {
		t.Fatal(err)
	}
	var first string
	waitFor(t, "TS-1's first event", func() bool {
		for e, err := range c.Events(ctx, haulgraph.ListEventsParams{LoadNumber: haulgraph.Ptr("TS-1")}) {
			if err != nil {
				t.Fatal(err)
			}
			first = e.Id
			return true
		}
		return false
	})
	if _, err := c.ChangeLoadStatus(ctx, "TS-1", "Covered"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateTrip(ctx, l.Trips[0].ID, haulgraph.UpdateTripInput{DriverIDs: []string{f.seed.DriverID.String()}}); err != nil {
		t.Fatal(err)
	}
	filter := &haulgraph.LoadEventFilter{LoadNumbers: []string{"TS-1"}}
	for e, err := range c.LoadStatusChanged(ctx, haulgraph.SubscribeOptions{Filter: filter, After: first}) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Type != "load.status.changed" || e.Data.Load.Status != "Covered" || e.Cursor == "" {
			t.Errorf("status event %+v", e)
		}
		break
	}
	for e, err := range c.TripChanged(ctx, haulgraph.SubscribeOptions{Filter: filter, After: first, IncludePreviousAttributes: true}) {
		if err != nil {
			t.Fatal(err)
		}
		if e.Type != "trip.changed" || e.Data.Trip.TripNumber != "TS-1-T" || e.Data.Diff == nil || e.Data.Diff.PreviousAttributes["DriverIds"] == nil {
			t.Errorf("trip event %+v", e)
		}
		break
	}
	reconnects := 0
	for _, err := range c.LoadChanged(ctx, haulgraph.SubscribeOptions{After: "not-a-cursor", OnReconnect: func(error, string) { reconnects++ }}) {
		var e *haulgraph.Error
		if !errors.As(err, &e) || e.Code != "BAD_USER_INPUT" || reconnects != 0 {
			t.Errorf("a forged cursor: %#v after %d reconnects", err, reconnects)
		}
		break
	}
}

// brokenStore makes the rate limiter unable to answer for clients' buckets
