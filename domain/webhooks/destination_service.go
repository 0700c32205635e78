package webhooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/haulgraph/haulgraph/domain"
)

// ProbeTimeout bounds the connection made to check a broker destination.
const ProbeTimeout = 5 * time.Second

// ProbeError is a broker's refusal the user can act on (wrong credentials,
// a missing exchange or stream), against the input field it concerns.
// Malformed marks input found unreadable only while connecting (a creds
// file that is not one): a 400 like any malformed field, not a refusal.
type ProbeError struct {
	Field, Message string
	Malformed      bool
}

func (e *ProbeError) Error() string { return e.Message }

// msgNoBroker is the one answer for a broker that could not be reached: a
// closed port, a filtered one, a failed TLS handshake or another protocol
// read the same, so destinations cannot map a network.
const msgNoBroker = "could not connect to the broker (address, port and TLS)"

// admits reports whether the service manages w: every type for event
// destinations, webhooks alone for the webhook routes.
func (s *Service) admits(w *Webhook) bool {
	return s.AllTypes || w.Type == TypeWebhook
}

// find is the tenant's destination id of a type the service manages.
func (s *Service) find(ctx context.Context, tenantID, id uuid.UUID) (*Webhook, error) {
	w, err := s.store().GetWebhook(ctx, tenantID, id)
	if err == nil && !s.admits(w) {
		return nil, domain.NotFound("webhook %s not found", id)
	}
	return w, err
}

// createBroker is Create for a broker type: the settings are checked, the
// broker is connected to once with them (a refusal is domain.Refused), and
// the destination starts Active, as that connection verified it.
func (s *Service) createBroker(ctx context.Context, tenantID uuid.UUID, in Input) (*Webhook, string, error) {
	t := *in.Type
	var v domain.Validation
	validateCommonInput(&v, in, true)
	validateBrokerInput(&v, t, in.Broker, in.Credentials)
	var target Target
	switch {
	case in.URL == nil || *in.URL == "":
		v.Add("url", "url is required")
	default:
		clean, creds, msg := splitBrokerURL(t, *in.URL, s.AllowInsecureURLs)
		if msg == "" {
			msg = checkResolvedURL(ctx, s.Resolver, clean, s.AllowInsecureURLs)
		}
		if msg != "" {
			v.Add("url", msg)
		}
		if in.Credentials != nil {
			creds = in.Credentials.merge(creds)
		}
		target = Target{Type: t, URL: clean, Credentials: creds}
	}
	scheme := SchemeStandardWebhooks
	if in.SignatureScheme != nil {
		scheme = *in.SignatureScheme
		if scheme == SchemeService {
			v.Add("signatureScheme", "a broker destination signs with standard-webhooks or standard-webhooks-ed25519")
		}
	}
	if err := s.admit(ctx, &v, tenantID, in.SubsidiaryID); err != nil {
		return nil, "", err
	}
	target.Broker = *in.Broker
	if t == TypeRabbitMQ && target.Broker.RoutingKey == "" {
		target.Broker.RoutingKey = DefaultRoutingKey
	}
	slug, err := s.Destinations.TenantSlug(ctx, tenantID)
	if err != nil {
		return nil, "", err
	}
	target.TenantSlug = slug
	if err := s.probe(ctx, target); err != nil {
		return nil, "", err
	}
	// Created, then verified by the probe: Pending, then Active.
	var state State
	for _, tr := range []Trigger{TriggerCreated, TriggerVerified} {
		if state, _, err = NextState(state, tr); err != nil {
			return nil, "", err
		}
	}
	w, key := s.newWebhook(tenantID, in, t, target.URL, scheme, state)
	w.Broker = &target.Broker
	if err := s.Destinations.CreateDestination(ctx, w, key.Secret, target.Credentials); err != nil {
		return nil, "", err
	}
	return w, key.Shown, nil
}

// probe connects once to the broker of t. Its refusal of well-formed input
// (no broker at the address, wrong credentials, a missing exchange or
// stream) is domain.Refused naming the field; malformed input stays invalid.
func (s *Service) probe(ctx context.Context, t Target) error {
	pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	err := s.Prober.Probe(pctx, t)
	var pe *ProbeError
	switch {
	case err == nil:
		return nil
	case !errors.As(err, &pe):
		return domain.Refused("url", msgNoBroker)
	case pe.Malformed:
		return domain.FieldError(pe.Field, pe.Message)
	}
	return domain.Refused(pe.Field, pe.Message)
}

// verifyBroker is enable's verification of a broker destination: its
// broker is connected to once with the stored credentials.
func (s *Service) verifyBroker(ctx context.Context, w *Webhook) error {
	creds, err := s.Destinations.DestinationCredentials(ctx, w.TenantID, w.ID)
	if err != nil {
		return err
	}
	slug, err := s.Destinations.TenantSlug(ctx, w.TenantID)
	if err != nil {
		return err
	}
	t := Target{Type: w.Type, URL: w.URL, Credentials: creds, TenantSlug: slug}
	if w.Broker != nil {
		t.Broker = *w.Broker
	}
	return s.Prober.Probe(ctx, t)
}

// admit is the last word on a new destination of any type, once its own
// fields are checked into v: its subsidiary exists, the input holds no
// error, and the tenant is below the limit.
func (s *Service) admit(ctx context.Context, v *domain.Validation, tenantID uuid.UUID, subsidiaryID *uuid.UUID) error {
	if err := s.checkSubsidiary(ctx, v, tenantID, subsidiaryID); err != nil {
		return err
	}
	if err := v.Err(); err != nil {
		return err
	}
	return s.checkLimit(ctx, tenantID)
}

// checkSubsidiary records in v that subsidiaryID is missing or not the
// tenant's.
func (s *Service) checkSubsidiary(ctx context.Context, v *domain.Validation, tenantID uuid.UUID, subsidiaryID *uuid.UUID) error {
	if subsidiaryID == nil || *subsidiaryID == uuid.Nil {
		return nil // validateCommonInput named it
	}
	ok, err := s.Store.SubsidiaryExists(ctx, tenantID, *subsidiaryID)
	if err == nil && !ok {
		v.Add("subsidiaryId", "unknown subsidiary")
	}
	return err
}

// checkLimit refuses a destination past MaxPerTenant (every type counts).
func (s *Service) checkLimit(ctx context.Context, tenantID uuid.UUID) error {
	n, err := s.Store.CountWebhooks(ctx, tenantID)
	if err != nil {
		return err
	}
	if n >= MaxPerTenant {
		return &domain.Error{Code: domain.CodeConflict, Message: fmt.Sprintf("a tenant may hold at most %d event destinations (webhooks included)", MaxPerTenant)}
	}
	return nil
}

// checkType validates a requested type against what the service manages.
func (s *Service) checkType(in Input) error {
	if in.Type == nil || *in.Type == TypeWebhook {
		return nil
	}
	if !s.AllTypes || !slices.Contains(Types, *in.Type) {
		names := make([]string, len(Types))
		for i, t := range Types {
			names[i] = string(t)
		}
		var v domain.Validation
		v.Add("type", fmt.Sprintf("unknown destination type %q (valid: %s)", *in.Type, strings.Join(names, ", ")))
		return v.Err()
	}
	return nil
}

// brokerUpdate refuses changes a broker destination cannot take: its
// connection is checked once, at creation.
func brokerUpdate(w *Webhook, in Input) error {
	settings := in.Broker != nil || in.Credentials != nil
	var v domain.Validation
	switch {
	case !w.Type.IsBroker() && settings:
		v.Add("type", "a webhook has no broker settings or credentials")
	case w.Type.IsBroker() && (settings || in.URL != nil):
		v.Add("url", "a broker destination's url, settings and credentials are fixed: create a new destination and delete this one")
	}
	return v.Err()
}

// brokerVerificationFailed is the state reason of a broker destination
// whose broker refused the connection made on enable.
func brokerVerificationFailed(err error) string {
	var pe *ProbeError
	if errors.As(err, &pe) {
		return "verification failed: " + pe.Message
	}
	return "verification failed: " + msgNoBroker
}
