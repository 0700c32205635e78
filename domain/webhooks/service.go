package webhooks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// maxEventIDLength bounds the event id a redelivery names.
const maxEventIDLength = 100

// Store is the storage port of webhook management. Every method is
// confined to the tenant it is given.
type Store interface {
	SubsidiaryExists(ctx context.Context, tenantID, subsidiaryID uuid.UUID) (bool, error)
	CountWebhooks(ctx context.Context, tenantID uuid.UUID) (int, error)
	// CreateWebhook stores w (with its scheme and public key) and seals
	// secret, the signing key.
	CreateWebhook(ctx context.Context, w *Webhook, secret string) error
	GetWebhook(ctx context.Context, tenantID, id uuid.UUID) (*Webhook, error)
	ListWebhooks(ctx context.Context, tenantID uuid.UUID, limit int) ([]Webhook, error)
	// ChangeWebhook locks the webhook (NotFound if the tenant has none of
	// that id), lets change decide on it and saves what change left in its
	// configuration (name, URL, event types, previous attributes) and state
	// (state, reason, failing since, updated at), returning what was saved.
	// An error from change saves nothing and is returned.
	ChangeWebhook(ctx context.Context, tenantID, id uuid.UUID, change func(w *Webhook) error) (*Webhook, error)
	// RotateWebhookSecret makes secret (and publicKey, "" for the HMAC
	// schemes) current, keeping the old secret for signatures until
	// rotationEnds (nil: drop it at once).
	RotateWebhookSecret(ctx context.Context, tenantID, id uuid.UUID, secret, publicKey string, rotationEnds *time.Time) error
	DeleteWebhook(ctx context.Context, tenantID, id uuid.UUID) error
	// Redeliver queues a new delivery of an event of the webhook's subsidiary.
	Redeliver(ctx context.Context, tenantID, webhookID uuid.UUID, eventID string, now time.Time) (*Delivery, error)
	// RecoverDeliveries makes the webhook's Failed deliveries created since
	// Pending again, due now, each with a fresh retry chain; NotFound when the
	// webhook is not the tenant's.
	RecoverDeliveries(ctx context.Context, tenantID, webhookID uuid.UUID, since, now time.Time) (int, error)
	ListDeliveries(ctx context.Context, tenantID, webhookID uuid.UUID, limit int) ([]Delivery, error)
	// ListDeliveriesFor is ListDeliveries for several webhooks in one go.
	ListDeliveriesFor(ctx context.Context, tenantID uuid.UUID, webhookIDs []uuid.UUID, limit int) (map[uuid.UUID][]Delivery, error)
}

// VerificationFailed is the state reason of every failed verification: a
// closed port, another listener, an HTTP error or a wrong answer all read
// the same, so enabling webhooks cannot map a network.
var VerificationFailed = fmt.Sprintf(`verification failed: the endpoint did not answer 200 with {"challenge": "<the X-Service-Challenge header>"} within %s`, VerificationTimeout)

// Challenger sends the verification request of docs/api-contract.md §6.2 and checks the
// answer, returning why it failed (nil: verified).
type Challenger interface {
	Challenge(ctx context.Context, url, challenge string) error
}

// Service is the webhook management service used by GraphQL and the CLI.
type Service struct {
	Store      Store
	Challenger Challenger
	// DeliveryLog pages deliveries for REST (paging.go).
	DeliveryLog DeliveryLog
	// AllowInsecureURLs is the development flag (http:// and loopback).
	AllowInsecureURLs bool
	// Resolver, when set, resolves a URL's host when it is saved: a name
	// that resolves inside (private, loopback, link-local) is refused.
	Resolver HostResolver
	Now      func() time.Time
	// AllTypes manages every destination type (the event-destination
	// routes); false: webhooks alone, as the webhook routes show them.
	AllTypes bool
	// Destinations and Prober serve the broker types.
	Destinations DestinationStore
	Prober       Prober
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Service) tenant(ctx context.Context) (uuid.UUID, error) {
	p, err := domain.Authorize(ctx, OpManageWebhooks)
	if err != nil {
		return uuid.Nil, err
	}
	return p.TenantID, nil
}

// Create validates in and stores a Pending webhook; the secret is returned
// once, here ("" for ed25519, whose public key is on the webhook).
func (s *Service) Create(ctx context.Context, in Input) (*Webhook, string, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, "", err
	}
	if err := s.checkType(in); err != nil {
		return nil, "", err
	}
	if in.Type != nil && in.Type.IsBroker() {
		return s.createBroker(ctx, tenantID, in)
	}
	var v domain.Validation
	validateWebhookInput(&v, in, true, s.AllowInsecureURLs)
	if in.URL != nil && !v.Has("url") {
		if msg := checkResolvedURL(ctx, s.Resolver, *in.URL, s.AllowInsecureURLs); msg != "" {
			v.Add("url", msg)
		}
	}
	if in.Broker != nil || in.Credentials != nil {
		v.Add("type", "a webhook has no broker settings or credentials")
	}
	if err := s.admit(ctx, &v, tenantID, in.SubsidiaryID); err != nil {
		return nil, "", err
	}
	state, _, err := NextState("", TriggerCreated)
	if err != nil {
		return nil, "", err
	}
	scheme := SchemeService
	if in.SignatureScheme != nil {
		scheme = *in.SignatureScheme
	}
	w, key := s.newWebhook(tenantID, in, TypeWebhook, *in.URL, scheme, state)
	if err := s.Store.CreateWebhook(ctx, w, key.Secret); err != nil {
		return nil, "", err
	}
	return w, key.Shown, nil
}

// newWebhook is the destination a create stores, of type t at url in
// state, and its new key of scheme (the caller stores key.Secret).
func (s *Service) newWebhook(tenantID uuid.UUID, in Input, t Type, url string, scheme SignatureScheme, state State) (*Webhook, Key) {
	// Stored timestamps have microseconds: answer what a read returns later.
	now := s.now().UTC().Truncate(time.Microsecond)
	w := &Webhook{ID: uuid.New(), TenantID: tenantID, SubsidiaryID: *in.SubsidiaryID, Type: t, Name: *in.Name, URL: url,
		EventTypes: dedupe(in.EventTypes), SignatureScheme: scheme, State: state, CreatedAt: now, UpdatedAt: now}
	if in.IncludePreviousAttributes != nil {
		w.IncludePreviousAttributes = *in.IncludePreviousAttributes
	}
	key := NewKey(scheme)
	w.PublicKey = key.PublicKey
	return w, key
}

// Get returns one webhook of the caller's tenant.
func (s *Service) Get(ctx context.Context, id uuid.UUID) (*Webhook, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	return s.find(ctx, tenantID, id)
}

// List returns the tenant's webhooks (at most MaxPerTenant).
func (s *Service) List(ctx context.Context) ([]Webhook, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	all, err := s.store().ListWebhooks(ctx, tenantID, MaxPerTenant)
	out := all[:0]
	for i := range all {
		if s.admits(&all[i]) {
			out = append(out, all[i])
		}
	}
	return out, err
}

// Update changes configuration; a URL change on an Active webhook sends it
// back to Pending and re-verifies (docs/api-contract.md §3.1). The subsidiary is fixed.
func (s *Service) Update(ctx context.Context, id uuid.UUID, in Input) (*Webhook, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	if in.SubsidiaryID != nil {
		var v domain.Validation
		v.Add("subsidiaryId", "a webhook's subsidiary cannot be changed")
		return nil, v.Err()
	}
	if in.Type != nil {
		var v domain.Validation
		v.Add("type", "a destination's type cannot be changed")
		return nil, v.Err()
	}
	if err := ValidateInput(in, false, s.AllowInsecureURLs); err != nil {
		return nil, err
	}
	if in.URL != nil {
		if msg := checkResolvedURL(ctx, s.Resolver, *in.URL, s.AllowInsecureURLs); msg != "" {
			var v domain.Validation
			v.Add("url", msg)
			return nil, v.Err()
		}
	}
	current, err := s.find(ctx, tenantID, id)
	if err != nil {
		return nil, err
	}
	if err := brokerUpdate(current, in); err != nil {
		return nil, err
	}
	verify := false
	w, err := s.store().ChangeWebhook(ctx, tenantID, id, func(w *Webhook) error {
		if !s.admits(w) || w.Type != current.Type {
			return domain.NotFound("webhook %s not found", id)
		}
		var err error
		verify, err = s.applyUpdate(w, in)
		return err
	})
	if err != nil {
		return nil, err
	}
	if verify {
		return s.verify(ctx, w)
	}
	return w, nil
}

// applyUpdate changes w as in asks and reports whether its endpoint must be
// verified again.
func (s *Service) applyUpdate(w *Webhook, in Input) (verify bool, err error) {
	if in.SignatureScheme != nil && *in.SignatureScheme != w.SignatureScheme {
		var v domain.Validation
		v.Add("signatureScheme", "a webhook's signature scheme cannot be changed: create a webhook with the new scheme")
		return false, v.Err()
	}
	var triggers []Trigger
	if in.Name != nil {
		w.Name = *in.Name
	}
	if in.EventTypes != nil {
		w.EventTypes = dedupe(in.EventTypes)
		triggers = append(triggers, TriggerEventsChanged)
	}
	if in.IncludePreviousAttributes != nil && *in.IncludePreviousAttributes != w.IncludePreviousAttributes {
		w.IncludePreviousAttributes = *in.IncludePreviousAttributes
		triggers = append(triggers, TriggerPreviousAttrChanged)
	}
	if in.URL != nil && *in.URL != w.URL {
		w.URL = *in.URL
		triggers = append(triggers, TriggerURLChanged)
	}
	for _, tr := range triggers {
		to, v, err := NextState(w.State, tr)
		if err != nil {
			return false, err
		}
		if to != w.State {
			w.moveTo(to, w.StateReason)
		}
		verify = verify || v
	}
	w.UpdatedAt = s.now().UTC().Truncate(time.Microsecond)
	return verify, nil
}

// moveTo puts w in state to, shown with reason; an Active webhook is not
// failing.
func (w *Webhook) moveTo(to State, reason string) {
	w.State, w.StateReason = to, reason
	if to == WebhookActive {
		w.FailingSince = nil
	}
}

// errKept ends a change that decides to leave the webhook as it is.
var errKept = errors.New("webhook kept as it is")

// Enable is the Send Events toggle: the webhook goes Pending and its endpoint
// gets a verification request; a correct answer within 3 s makes it Active.
func (s *Service) Enable(ctx context.Context, id uuid.UUID) (*Webhook, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.store().ChangeWebhook(ctx, tenantID, id, func(w *Webhook) error {
		if !s.admits(w) {
			return domain.NotFound("webhook %s not found", id)
		}
		to, verify, err := NextState(w.State, TriggerEnable)
		if err != nil {
			return err
		}
		if !verify {
			return errKept
		}
		w.moveTo(to, "")
		w.UpdatedAt = s.now().UTC().Truncate(time.Microsecond)
		return nil
	})
	if errors.Is(err, errKept) {
		return s.store().GetWebhook(ctx, tenantID, id)
	}
	if err != nil {
		return nil, err
	}
	return s.verify(ctx, w)
}

// verify runs the handshake for a Pending webhook and records the outcome,
// unless the webhook changed (URL, manual disable) in the meantime.
func (s *Service) verify(ctx context.Context, w *Webhook) (*Webhook, error) {
	vctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), VerificationTimeout)
	defer cancel()
	var reason string // why the verification failed, "" if it did not
	if w.Type.IsBroker() {
		if err := s.verifyBroker(vctx, w); err != nil {
			reason = brokerVerificationFailed(err)
		}
	} else if err := s.Challenger.Challenge(vctx, w.URL, newChallenge()); err != nil {
		reason = VerificationFailed // whatever failed: the challenger logs the cause
	}
	trigger := TriggerVerified
	if reason != "" {
		trigger = TriggerVerificationFailed
	}
	to, _, err := NextState(WebhookPending, trigger)
	if err != nil {
		return nil, err
	}
	out, err := s.store().ChangeWebhook(ctx, w.TenantID, w.ID, func(now *Webhook) error {
		if now.State != WebhookPending || now.URL != w.URL {
			return errKept // changed meanwhile: that change wins
		}
		now.moveTo(to, reason)
		now.UpdatedAt = s.now().UTC().Truncate(time.Microsecond)
		return nil
	})
	if errors.Is(err, errKept) {
		return s.store().GetWebhook(ctx, w.TenantID, w.ID)
	}
	return out, err
}

// Disable stops delivery at once; configuration and queued deliveries are
// kept (they resume if the webhook is enabled and verified again).
func (s *Service) Disable(ctx context.Context, id uuid.UUID) (*Webhook, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	return s.store().ChangeWebhook(ctx, tenantID, id, func(w *Webhook) error {
		if !s.admits(w) {
			return domain.NotFound("webhook %s not found", id)
		}
		to, _, err := NextState(w.State, TriggerDisable)
		if err != nil {
			return err
		}
		w.moveTo(to, "disabled manually")
		w.UpdatedAt = s.now().UTC().Truncate(time.Microsecond)
		return nil
	})
}

// RegenerateSecret issues a new key of the webhook's scheme (an HMAC secret
// is returned once; an ed25519 public key is on the webhook). During the
// rotation window (default 24 h, 0 = none) deliveries carry a signature by
// the new and one by the old key.
func (s *Service) RegenerateSecret(ctx context.Context, id uuid.UUID, window *time.Duration) (*Webhook, string, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, "", err
	}
	win := DefaultRotationWindow
	if window != nil {
		win = *window
	}
	if win < 0 || win > MaxRotationWindow {
		var v domain.Validation
		v.Add("rotationWindow", "rotationWindow must be between 0 and 7 days")
		return nil, "", v.Err()
	}
	w, err := s.find(ctx, tenantID, id)
	if err != nil {
		return nil, "", err
	}
	if _, _, err := NextState(w.State, TriggerSecretRegenerated); err != nil {
		return nil, "", err
	}
	var ends *time.Time
	if win > 0 {
		t := s.now().Add(win)
		ends = &t
	}
	key := NewKey(w.SignatureScheme)
	if err := s.Store.RotateWebhookSecret(ctx, tenantID, id, key.Secret, key.PublicKey, ends); err != nil {
		return nil, "", err
	}
	w, err = s.store().GetWebhook(ctx, tenantID, id)
	return w, key.Shown, err
}

// Delete removes the webhook with its deliveries and attempts.
func (s *Service) Delete(ctx context.Context, id uuid.UUID) error {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return err
	}
	if _, err := s.find(ctx, tenantID, id); err != nil {
		return err
	}
	return s.Store.DeleteWebhook(ctx, tenantID, id)
}

// Redeliver queues the event again for the webhook (a new delivery, same
// event id).
func (s *Service) Redeliver(ctx context.Context, webhookID uuid.UUID, eventID string) (*Delivery, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	if eventID == "" || len(eventID) > maxEventIDLength {
		var v domain.Validation
		v.Add("eventId", fmt.Sprintf("eventId is required (at most %d characters)", maxEventIDLength))
		return nil, v.Err()
	}
	if _, err := s.find(ctx, tenantID, webhookID); err != nil {
		return nil, err
	}
	return s.Store.Redeliver(ctx, tenantID, webhookID, eventID, s.now())
}

// Deliveries lists the webhook's latest deliveries with their attempts.
func (s *Service) Deliveries(ctx context.Context, webhookID uuid.UUID, limit int) ([]Delivery, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := s.find(ctx, tenantID, webhookID); err != nil {
		return nil, err
	}
	ds, err := s.Store.ListDeliveries(ctx, tenantID, webhookID, clampLimit(limit))
	boundAttempts(ds)
	return ds, err
}

// DeliveriesFor is Deliveries for several webhooks at once (no N+1 when a
// list of webhooks asks for its deliveries).
func (s *Service) DeliveriesFor(ctx context.Context, webhookIDs []uuid.UUID, limit int) (map[uuid.UUID][]Delivery, error) {
	tenantID, err := s.tenant(ctx)
	if err != nil {
		return nil, err
	}
	if len(webhookIDs) > MaxPerTenant {
		return nil, domain.Invalid("at most %d webhooks at once", MaxPerTenant)
	}
	m, err := s.Store.ListDeliveriesFor(ctx, tenantID, webhookIDs, clampLimit(limit))
	for _, ds := range m {
		boundAttempts(ds)
	}
	return m, err
}

func newChallenge() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func dedupe(in []string) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
