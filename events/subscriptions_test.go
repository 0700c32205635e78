package events

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// TestSubscriptionsAuthorizeValidateAndFilter: the domain's subscription
// service on the real hub: scopes per event type, the caller's tenant only,
// filter validation, and the loadNumbers/subsidiaryId filters.
func TestSubscriptionsAuthorizeValidateAndFilter(t *testing.T) {
	t.Parallel()
	h := NewHub()
	svc := &eventlog.Subscriptions{Stream: h}
	tenant, other := uuid.New(), uuid.New()
	caller := func(scopes ...domain.Scope) context.Context {
		return domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: tenant, Scopes: scopes})
	}
	sink := newSink(8)

	if _, err := svc.Subscribe(context.Background(), nil, domain.EventLoadChanged, eventlog.SubscriptionInput{}, sink.sink()); domain.CodeOf(err) != domain.CodeUnauthenticated {
		t.Fatalf("anonymous: %v", err)
	}
	if _, err := svc.Subscribe(caller(domain.ScopeLoadRead), nil, domain.EventTripChanged, eventlog.SubscriptionInput{}, sink.sink()); domain.CodeOf(err) != domain.CodeForbidden {
		t.Fatalf("trip events with load:read: %v", err)
	}
	bad := "nope"
	many := make([]string, eventlog.MaxFilterLoadNumbers+1)
	for i := range many {
		many[i] = "L"
	}
	for name, in := range map[string]eventlog.SubscriptionInput{
		"status": {Statuses: []string{"Lost"}}, "subsidiary": {SubsidiaryID: &bad}, "too many": {LoadNumbers: many}, "empty": {LoadNumbers: []string{" "}},
	} {
		if _, err := svc.Subscribe(caller(domain.ScopeLoadRead), nil, domain.EventLoadChanged, in, sink.sink()); domain.CodeOf(err) != domain.CodeInvalid {
			t.Errorf("%s filter accepted: %v", name, err)
		}
	}
	if h.Subscribers() != 0 {
		t.Fatalf("refused subscriptions registered: %d", h.Subscribers())
	}

	subsidiary := uuid.New()
	s := subsidiary.String()
	sub, err := svc.Subscribe(caller(domain.ScopeLoadRead), nil, domain.EventLoadChanged,
		eventlog.SubscriptionInput{LoadNumbers: []string{"L-1"}, SubsidiaryID: &s}, sink.sink())
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	ev := func(tn uuid.UUID, typ, number string, sub uuid.UUID) *eventlog.LiveEvent {
		return &eventlog.LiveEvent{Type: typ, TenantID: tn, SubsidiaryID: sub, Data: domain.EventData{Load: &domain.Load{LoadNumber: number}}}
	}
	h.Publish(ev(other, domain.EventLoadChanged, "L-1", subsidiary))        // other tenant
	h.Publish(ev(tenant, domain.EventLoadStatusChanged, "L-1", subsidiary)) // other type
	h.Publish(ev(tenant, domain.EventLoadChanged, "L-2", subsidiary))       // other load
	h.Publish(ev(tenant, domain.EventLoadChanged, "L-1", uuid.New()))       // other subsidiary
	h.Publish(ev(tenant, domain.EventLoadChanged, "L-1", subsidiary))       // the one
	if len(sink.ch) != 1 {
		t.Fatalf("filter let %d events through, want 1", len(sink.ch))
	}
}

// A subscription's loadNumbers match as GET /loads/{loadNumber} finds a
// load: any number creation accepts (64 characters, not bytes), and exactly
// as stored (" L-1" is not L-1).
func TestSubscriptionsFilterLoadNumbersAsLookedUp(t *testing.T) {
	t.Parallel()
	h := NewHub()
	svc := &eventlog.Subscriptions{Stream: h}
	tenant := uuid.New()
	ctx := domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: tenant, Scopes: []domain.Scope{domain.ScopeLoadRead}})
	long := strings.Repeat("Ł", domain.MaxLoadNumber) // 128 bytes
	if _, err := svc.Subscribe(ctx, nil, domain.EventLoadChanged, eventlog.SubscriptionInput{LoadNumbers: []string{long + "Ł"}}, newSink(1).sink()); domain.CodeOf(err) != domain.CodeInvalid {
		t.Fatalf("%d characters accepted: %v", domain.MaxLoadNumber+1, err)
	}
	sink := newSink(8)
	sub, err := svc.Subscribe(ctx, nil, domain.EventLoadChanged, eventlog.SubscriptionInput{LoadNumbers: []string{long, " L-1"}}, sink.sink())
	if err != nil {
		t.Fatalf("%d non-ASCII characters and \" L-1\": %v", domain.MaxLoadNumber, err)
	}
	defer sub.Close()
	for _, n := range []string{"L-1", long, " L-1"} {
		h.Publish(&eventlog.LiveEvent{Type: domain.EventLoadChanged, TenantID: tenant, Data: domain.EventData{Load: &domain.Load{LoadNumber: n}}})
	}
	var got []string
	for len(sink.ch) > 0 {
		got = append(got, (<-sink.ch).Data.Load.LoadNumber)
	}
	if !slices.Equal(got, []string{long, " L-1"}) {
		t.Fatalf("delivered %q, want the %d-character number and \" L-1\"", got, domain.MaxLoadNumber)
	}
}

// A transport's own feed, passed to Subscribe, is where the events come
// from; the instance's hub is not touched, and a refused subscription never
// reaches the feed.
func TestSubscriptionsReadTheStreamTheyAreGiven(t *testing.T) {
	t.Parallel()
	instance, feed := NewHub(), NewHub()
	svc := &eventlog.Subscriptions{Stream: instance}
	tenant := uuid.New()
	ctx := domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: tenant, Scopes: []domain.Scope{domain.ScopeLoadRead}})
	sink := newSink(8)
	if _, err := svc.Subscribe(ctx, feed, domain.EventTripChanged, eventlog.SubscriptionInput{}, sink.sink()); domain.CodeOf(err) != domain.CodeForbidden {
		t.Fatalf("trip events with load:read: %v", err)
	}
	if feed.Subscribers() != 0 {
		t.Fatal("a refused subscription reached the feed")
	}
	sub, err := svc.Subscribe(ctx, feed, domain.EventLoadChanged, eventlog.SubscriptionInput{}, sink.sink())
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if feed.Subscribers() != 1 || instance.Subscribers() != 0 {
		t.Fatalf("feed has %d subscribers, the instance's hub %d", feed.Subscribers(), instance.Subscribers())
	}
	feed.Publish(&eventlog.LiveEvent{ID: "from-feed", Type: domain.EventLoadChanged, TenantID: tenant})
	instance.Publish(&eventlog.LiveEvent{ID: "from-hub", Type: domain.EventLoadChanged, TenantID: tenant})
	if n := len(sink.ch); n != 1 {
		t.Fatalf("delivered %d events, want the feed's one", n)
	}
	if ev := <-sink.ch; ev.ID != "from-feed" {
		t.Fatalf("delivered %s, want the feed's event", ev.ID)
	}
}
