package domain

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"

	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// WebhookState is a webhook's status (docs/api-contract.md §3.1). FailedVerification behaves
// exactly as Disabled; it only lets the UI say why.
type WebhookState string

const (
	WebhookDisabled           WebhookState = "Disabled"
	WebhookPending            WebhookState = "Pending"
	WebhookActive             WebhookState = "Active"
	WebhookFailedVerification WebhookState = "FailedVerification"
)

// Label is the UI label of the state (Active is shown as Connected).
func (s WebhookState) Label() string {
	switch s {
	case WebhookActive:
		return "Connected"
	case WebhookFailedVerification:
		return "Failed to verify"
	}
	return string(s)
}

// Delivering reports whether business events flow to the endpoint.
func (s WebhookState) Delivering() bool { return s == WebhookActive }

// WebhookTrigger is what moves a webhook between states.
type WebhookTrigger string

const (
	TriggerCreated             WebhookTrigger = "created"
	TriggerEnable              WebhookTrigger = "enable"
	TriggerVerified            WebhookTrigger = "verified"
	TriggerVerificationFailed  WebhookTrigger = "verification failed"
	TriggerURLChanged          WebhookTrigger = "url changed"
	TriggerEventsChanged       WebhookTrigger = "events changed"
	TriggerPreviousAttrChanged WebhookTrigger = "include previous attributes changed"
	TriggerSecretRegenerated   WebhookTrigger = "secret regenerated"
	TriggerDisable             WebhookTrigger = "disable"
	// TriggerEndpointGone and TriggerFailingTooLong are the delivery worker's
	// automatic disables (docs/architecture.md: 410 Gone, 5 days of failures).
	TriggerEndpointGone   WebhookTrigger = "endpoint gone"
	TriggerFailingTooLong WebhookTrigger = "failing too long"
)

// WebhookTransition is one row of docs/api-contract.md §3.1's table. From "" is "(none)";
// Verify says a verification request must be sent on entering To.
type WebhookTransition struct {
	From    []WebhookState
	Trigger WebhookTrigger
	To      WebhookState
	Verify  bool
}

var (
	anyState      = []WebhookState{WebhookDisabled, WebhookPending, WebhookActive, WebhookFailedVerification}
	inactiveState = []WebhookState{WebhookDisabled, WebhookPending, WebhookFailedVerification}
)

// WebhookTransitions is the state machine. Rows marked "contract" are docs/api-contract.md §3.1;
// the others are decisions for what the table leaves open.
var WebhookTransitions = []WebhookTransition{
	{From: []WebhookState{""}, Trigger: TriggerCreated, To: WebhookPending},                                            // contract: no events delivered
	{From: inactiveState, Trigger: TriggerEnable, To: WebhookPending, Verify: true},                                    // contract (FailedVerification behaves as Disabled)
	{From: []WebhookState{WebhookActive}, Trigger: TriggerEnable, To: WebhookActive},                                   // decision: enabling a connected webhook is a no-op
	{From: []WebhookState{WebhookPending}, Trigger: TriggerVerified, To: WebhookActive},                                // contract
	{From: []WebhookState{WebhookPending}, Trigger: TriggerVerificationFailed, To: WebhookFailedVerification},          // contract: Disabled, UI shows failed verification
	{From: []WebhookState{WebhookActive}, Trigger: TriggerURLChanged, To: WebhookPending, Verify: true},                // contract: re-verification
	{From: inactiveState, Trigger: TriggerURLChanged, To: WebhookSameState},                                            // decision: config only; verified on enable
	{From: anyState, Trigger: TriggerEventsChanged, To: WebhookSameState},                                              // contract (Active stays Active)
	{From: anyState, Trigger: TriggerPreviousAttrChanged, To: WebhookSameState},                                        // contract (Active stays Active)
	{From: anyState, Trigger: TriggerSecretRegenerated, To: WebhookSameState},                                          // contract: no re-verification, dual signatures
	{From: anyState, Trigger: TriggerDisable, To: WebhookDisabled},                                                     // contract: configuration kept
	{From: []WebhookState{WebhookActive}, Trigger: TriggerEndpointGone, To: WebhookDisabled},                           // DESIGN: 410 Gone
	{From: []WebhookState{WebhookActive}, Trigger: TriggerFailingTooLong, To: WebhookDisabled},                         // DESIGN: failing for 5 days
	{From: []WebhookState{WebhookDisabled, WebhookFailedVerification}, Trigger: TriggerVerified, To: WebhookSameState}, // a late answer after a manual disable changes nothing
}

// WebhookSameState in a transition's To means "stays where it is".
const WebhookSameState WebhookState = "(same)"

// NextWebhookState applies trigger to from: the new state and whether a
// verification request must be sent, or CONFLICT when no row allows it.
func NextWebhookState(from WebhookState, trigger WebhookTrigger) (WebhookState, bool, error) {
	for _, t := range WebhookTransitions {
		if t.Trigger == trigger && slices.Contains(t.From, from) {
			if t.To == WebhookSameState {
				return from, false, nil
			}
			return t.To, t.Verify, nil
		}
	}
	return from, false, &Error{Code: CodeConflict, Message: fmt.Sprintf("a %s webhook cannot take the transition %q", from, trigger)}
}

// Webhook is one webhook configuration (docs/api-contract.md §2.8). The signing secret is not
// here: it is shown once and stored encrypted.
type Webhook struct {
	ID                        uuid.UUID
	TenantID                  uuid.UUID
	SubsidiaryID              uuid.UUID
	Name                      string
	URL                       string
	EventTypes                []string
	IncludePreviousAttributes bool
	// SignatureScheme is fixed at creation (see SignatureScheme).
	SignatureScheme SignatureScheme
	// PublicKey is the "whpk_…" key that verifies ed25519 signatures; ""
	// for the HMAC schemes, whose secret is never readable.
	PublicKey string
	State     WebhookState
	// StateReason says why a webhook is disabled or failed verification
	// (e.g. "verification: status 500", "endpoint answered 410 Gone").
	StateReason string
	// RotationEndsAt is the end of the open secret rotation window, if any.
	RotationEndsAt *time.Time
	FailingSince   *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// WebhookInput is create/update input; nil fields are left unchanged on update.
type WebhookInput struct {
	Name                      *string
	URL                       *string
	EventTypes                []string // nil: unchanged on update
	SubsidiaryID              *uuid.UUID
	IncludePreviousAttributes *bool
	// SignatureScheme is taken on create (nil: SchemeService); an update
	// may only repeat the webhook's own.
	SignatureScheme *SignatureScheme
}

// Limits of webhook input (docs/security.md: every input bounded).
const (
	MaxWebhookNameLen        = 200
	MaxWebhookURLLen         = 2048
	MaxWebhooksPerTenant     = 100
	DefaultRotationWindow    = 24 * time.Hour
	MaxRotationWindow        = 7 * 24 * time.Hour
	VerificationTimeout      = 3 * time.Second
	WebhookSecretPrefix      = "whsec_"
	webhookSecretRandomBytes = 32
)

// ValidateWebhookInput checks in against docs/api-contract.md §2.8 for create (creating true:
// every required field present) or update. allowInsecure is the development
// flag that admits http:// and loopback endpoints.
func ValidateWebhookInput(in WebhookInput, creating, allowInsecure bool) error {
	var v Validation
	validateWebhookInput(&v, in, creating, allowInsecure)
	return v.Err()
}

func validateWebhookInput(v *Validation, in WebhookInput, creating, allowInsecure bool) {
	if in.Name != nil || creating {
		switch {
		case in.Name == nil || strings.TrimSpace(*in.Name) == "":
			v.Add("name", "name is required")
		case len(*in.Name) > MaxWebhookNameLen:
			v.Add("name", fmt.Sprintf("name must be at most %d characters", MaxWebhookNameLen))
		}
	}
	if in.URL != nil || creating {
		if in.URL == nil || *in.URL == "" {
			v.Add("url", "url is required")
		} else if msg := checkWebhookURL(*in.URL, allowInsecure); msg != "" {
			v.Add("url", msg)
		}
	}
	if in.EventTypes != nil || creating {
		if len(in.EventTypes) == 0 {
			v.Add("eventTypes", "at least one event type is required")
		}
		for _, e := range in.EventTypes {
			if !slices.Contains(EventTypes, e) {
				v.Add("eventTypes", fmt.Sprintf("unknown event type %q (valid: %s)", e, strings.Join(EventTypes, ", ")))
			}
		}
	}
	validateScheme(v, in.SignatureScheme)
	if creating && (in.SubsidiaryID == nil || *in.SubsidiaryID == uuid.Nil) {
		v.Add("subsidiaryId", "subsidiaryId is required")
	}
}

// checkWebhookURL returns why raw is not an acceptable endpoint, or "". The
// delivery client checks resolved addresses again at dial time (DNS can
// change); this check gives the user an early, field-level answer.
func checkWebhookURL(raw string, allowInsecure bool) string {
	if len(raw) > MaxWebhookURLLen {
		return fmt.Sprintf("url must be at most %d characters", MaxWebhookURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return "url must be an absolute URL"
	}
	if u.User != nil {
		return "url must not contain credentials"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return "url port must be between 1 and 65535"
		}
	}
	host := u.Hostname()
	addr, isIP := netip.ParseAddr(host)
	loopback := (isIP == nil && addr.IsLoopback()) || strings.EqualFold(host, "localhost")
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && allowInsecure && loopback:
	default:
		return "url must use https"
	}
	if isIP == nil && !WebhookAddrAllowed(addr, allowInsecure) {
		return msgNotPublic
	}
	if strings.EqualFold(host, "localhost") && !allowInsecure {
		return msgNotPublic
	}
	return ""
}

// NewWebhookSecret returns "whsec_" + base64 of 32 random bytes (≥ 256 bits).
func NewWebhookSecret() string {
	b := make([]byte, webhookSecretRandomBytes)
	if _, err := rand.Read(b); err != nil {
		panic("domain: no randomness: " + err.Error())
	}
	return WebhookSecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// WebhookDelivery is one event to deliver to one webhook, with its attempts.
type WebhookDelivery struct {
	ID            uuid.UUID
	WebhookID     uuid.UUID
	EventID       string
	EventType     string
	Status        string // Pending, Delivered, Failed
	Attempt       int
	NextAttemptAt *time.Time
	CreatedAt     time.Time
	// SignatureScheme is the webhook's when the delivery was queued.
	SignatureScheme SignatureScheme
	Attempts        []WebhookAttempt
}

// Delivery statuses.
const (
	DeliveryPending   = "Pending"
	DeliveryDelivered = "Delivered"
	DeliveryFailed    = "Failed"
)

// WebhookAttempt is one logged HTTP attempt (kept 30 days).
type WebhookAttempt struct {
	ID          uuid.UUID
	Attempt     int
	StatusCode  *int
	LatencyMS   int
	Error       string
	AttemptedAt time.Time
	// SignatureScheme is what this attempt was signed with.
	SignatureScheme SignatureScheme
}

// DeliveryRetrySchedule is docs/architecture.md's delay before each retry; after the last
// one fails the delivery is Failed.
var DeliveryRetrySchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// DeliveryTimeout bounds one delivery attempt.
const DeliveryTimeout = 15 * time.Second

// AutoDisableAfter disables an endpoint whose deliveries all failed this long.
const AutoDisableAfter = 5 * 24 * time.Hour

// NextRetry returns when to retry after the given (1-based) failed attempt, and
// false when the chain is exhausted.
func NextRetry(schedule []time.Duration, failedAttempt int, now time.Time) (time.Time, bool) {
	if failedAttempt < 1 || failedAttempt > len(schedule) {
		return time.Time{}, false
	}
	return now.Add(schedule[failedAttempt-1]), true
}

// StateLabel is the UI label of the webhook's state.
func (w Webhook) StateLabel() string { return w.State.Label() }
