package golive

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
		scheme haulgraph.SignatureScheme
		h      http.Header
		key    string
		wrong  string
	}{
		{haulgraph.SchemeService, service, secret, "whsec_other"},
		{haulgraph.SchemeService, service, old, "whsec_other"}, // v0 during a rotation
		{haulgraph.SchemeStandardWebhooks, standard, secret, "whsec_" + base64.StdEncoding.EncodeToString([]byte("x"))},
		{haulgraph.SchemeStandardWebhooks, standard, old, "whsec_" + base64.StdEncoding.EncodeToString([]byte("x"))},
		{haulgraph.SchemeStandardWebhooksEd25519, ed, whpk, "whpk_" + base64.StdEncoding.EncodeToString(otherPub)},
	}
	for _, tc := range cases {
		v := haulgraph.WebhookVerifier{Scheme: tc.scheme, Key: tc.key, Now: func() time.Time { return now.Add(time.Minute) }}
		e, err := v.ConstructEvent(body, tc.h)
		if err != nil || e.ID != "e-0" || e.Data.Load.Rate.Amount.String() != "123456789.01" {
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
// One Event type for every transport: the events listing and each
// subscription decode the same event alike (id, type, time as time.Time,
// the load with its exact rate), subscriptions replay from an event id, and
// a cursor that is none of the tenant's ends the loop with a typed refusal.
func TestOneEventType(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c := f.client(t, []domain.Scope{domain.ScopeLoadCreate, domain.ScopeLoadUpdate, domain.ScopeLoadRead, domain.ScopeTripRead, domain.ScopeTripUpdate})
	l, err := c.Loads.Create(ctx, &haulgraph.LoadParams{LoadNumber: "TS-1", SubsidiaryID: f.tenant.SubsidiaryID.String(),
		Rate:  haulgraph.NewMoney("2500.75", haulgraph.CAD),
		Stops: []haulgraph.StopParams{{Type: haulgraph.StopPickup, Name: "A"}, {Type: haulgraph.StopDelivery, Name: "B"}},
		Trips: []haulgraph.TripParams{{TripNumber: "TS-1-T"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Loads.ChangeStatus(ctx, "TS-1", &haulgraph.LoadStatusParams{Status: haulgraph.LoadStatusCovered}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Trips.Update(ctx, l.Trips[0].ID, &haulgraph.TripParams{DriverIDs: []string{f.seed.DriverID.String()}}); err != nil {
		t.Fatal(err)
	}
	var listed []haulgraph.Event
	waitFor(t, "TS-1's four events", func() bool {
		listed = nil
		for e, err := range c.Events.List(ctx, &haulgraph.EventListParams{LoadNumber: "TS-1", IncludePreviousAttributes: true}) {
			if err != nil {
				t.Fatal(err)
			}
			listed = append(listed, e)
		}
		return len(listed) >= 4
	})
	created := listed[0].ID
	same := func(kind string, live, rest haulgraph.Event) {
		t.Helper()
		if live.ID != rest.ID || live.Type != rest.Type || !live.Timestamp.Equal(rest.Timestamp) || live.Timestamp.IsZero() || live.Cursor == "" ||
			live.Data.Load.LoadNumber != "TS-1" || live.Data.Load.Rate.String() != "2500.75 CAD" || rest.Data.Load.Rate.String() != "2500.75 CAD" ||
			live.Data.Load.Status != rest.Data.Load.Status {
			t.Errorf("%s: the subscription's %+v, the listing's %+v", kind, live, rest)
		}
	}
	only := []string{"TS-1"}
	for e, err := range c.Events.Subscribe(ctx, &haulgraph.SubscribeParams{Type: haulgraph.EventLoadChanged, LoadNumbers: only, After: created}) {
		if err != nil {
			t.Fatal(err)
		}
		same("load.changed", e, listed[1])
		break
	}
	for e, err := range c.Events.Subscribe(ctx, &haulgraph.SubscribeParams{Type: haulgraph.EventLoadStatusChanged, LoadNumbers: only, After: created}) {
		if err != nil {
			t.Fatal(err)
		}
		same("load.status.changed", e, listed[2])
		if e.Data.Load.Status != haulgraph.LoadStatusCovered {
			t.Errorf("status event %+v", e)
		}
		break
	}
	for e, err := range c.Events.Subscribe(ctx, &haulgraph.SubscribeParams{Type: haulgraph.EventTripChanged, LoadNumbers: only, After: created, IncludePreviousAttributes: true}) {
		if err != nil {
			t.Fatal(err)
		}
		same("trip.changed", e, listed[3])
		if e.Data.Trip == nil || e.Data.Trip.TripNumber != "TS-1-T" || e.Data.Diff == nil || e.Data.Diff.PreviousAttributes["DriverIds"] == nil ||
			listed[3].Data.Trip == nil || listed[3].Data.Trip.ID != e.Data.Trip.ID {
			t.Errorf("trip event %+v", e)
		}
		break
	}
	reconnects := 0
	for _, err := range c.Events.Subscribe(ctx, &haulgraph.SubscribeParams{After: "not-a-cursor", OnReconnect: func(error, string) { reconnects++ }}) {
		var e *haulgraph.Error
		if !errors.As(err, &e) || e.Code != "BAD_USER_INPUT" || reconnects != 0 {
			t.Errorf("a forged cursor: %#v after %d reconnects", err, reconnects)
		}
		break
	}
}
