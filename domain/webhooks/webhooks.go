package webhooks

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
	"github.com/haulgraph/haulgraph/domain"
)

// State is a webhook's status (docs/api-contract.md §3.1). FailedVerification behaves
// exactly as Disabled; it only lets the UI say why.
type State string

const (
	WebhookDisabled           State = "Disabled"
	WebhookPending            State = "Pending"
	WebhookActive             State = "Active"
	WebhookFailedVerification State = "FailedVerification"
)

// Label is the UI label of the state (Active is shown as Connected).
func (s State) Label() string {
	switch s {
	case WebhookActive:
		return "Connected"
	case WebhookFailedVerification:
		return "Failed to verify"
	}
	return string(s)
}

// Delivering reports whether business events flow to the endpoint.
func (s State) Delivering() bool { return s == WebhookActive }

// Trigger is what moves a webhook between states.
type Trigger string

const (
	TriggerCreated             Trigger = "created"
	TriggerEnable              Trigger = "enable"
	TriggerVerified            Trigger = "verified"
	TriggerVerificationFailed  Trigger = "verification failed"
	TriggerURLChanged          Trigger = "url changed"
	TriggerEventsChanged       Trigger = "events changed"
	TriggerPreviousAttrChanged Trigger = "include previous attributes changed"
	TriggerSecretRegenerated   Trigger = "secret regenerated"
	TriggerDisable             Trigger = "disable"
	// TriggerEndpointGone and TriggerFailingTooLong are the delivery worker's
	// automatic disables (docs/webhooks.md, Retries: 410 Gone, 5 days of
	// failures).
	TriggerEndpointGone   Trigger = "endpoint gone"
	TriggerFailingTooLong Trigger = "failing too long"
)

// Transition is one row of docs/api-contract.md §3.1's table. From "" is "(none)";
// Verify says a verification request must be sent on entering To.
type Transition struct {
	From    []State
	Trigger Trigger
	To      State
	Verify  bool
}

var (
	anyState      = []State{WebhookDisabled, WebhookPending, WebhookActive, WebhookFailedVerification}
	inactiveState = []State{WebhookDisabled, WebhookPending, WebhookFailedVerification}
)

// Transitions is the state machine. Rows marked "contract" are docs/api-contract.md §3.1;
// the others are decisions for what the table leaves open.
var Transitions = []Transition{
	{From: []State{""}, Trigger: TriggerCreated, To: WebhookPending},                                     // contract: no events delivered
	{From: inactiveState, Trigger: TriggerEnable, To: WebhookPending, Verify: true},                      // contract (FailedVerification behaves as Disabled)
	{From: []State{WebhookActive}, Trigger: TriggerEnable, To: WebhookActive},                            // decision: enabling a connected webhook is a no-op
	{From: []State{WebhookPending}, Trigger: TriggerVerified, To: WebhookActive},                         // contract
	{From: []State{WebhookPending}, Trigger: TriggerVerificationFailed, To: WebhookFailedVerification},   // contract: Disabled, UI shows failed verification
	{From: []State{WebhookActive}, Trigger: TriggerURLChanged, To: WebhookPending, Verify: true},         // contract: re-verification
	{From: inactiveState, Trigger: TriggerURLChanged, To: SameState},                                     // decision: config only; verified on enable
	{From: anyState, Trigger: TriggerEventsChanged, To: SameState},                                       // contract (Active stays Active)
	{From: anyState, Trigger: TriggerPreviousAttrChanged, To: SameState},                                 // contract (Active stays Active)
	{From: anyState, Trigger: TriggerSecretRegenerated, To: SameState},                                   // contract: no re-verification, dual signatures
	{From: anyState, Trigger: TriggerDisable, To: WebhookDisabled},                                       // contract: configuration kept
	{From: []State{WebhookActive}, Trigger: TriggerEndpointGone, To: WebhookDisabled},                    // DESIGN: 410 Gone
	{From: []State{WebhookActive}, Trigger: TriggerFailingTooLong, To: WebhookDisabled},                  // DESIGN: failing for 5 days
	{From: []State{WebhookDisabled, WebhookFailedVerification}, Trigger: TriggerVerified, To: SameState}, // a late answer after a manual disable changes nothing
}

// SameState in a transition's To means "stays where it is".
const SameState State = "(same)"

// NextState applies trigger to from: the new state and whether a
// verification request must be sent, or CONFLICT when no row allows it.
func NextState(from State, trigger Trigger) (State, bool, error) {
	for _, t := range Transitions {
		if t.Trigger == trigger && slices.Contains(t.From, from) {
			if t.To == SameState {
				return from, false, nil
			}
			return t.To, t.Verify, nil
		}
	}
	return from, false, &domain.Error{Code: domain.CodeConflict, Message: fmt.Sprintf("a %s webhook cannot take the transition %q", from, trigger)}
}

// Webhook is one webhook configuration (docs/api-contract.md §2.8). The signing secret is not
// here: it is shown once and stored encrypted.
type Webhook struct {
	ID           uuid.UUID
	TenantID     uuid.UUID
	SubsidiaryID uuid.UUID
	// Type is the destination's kind ("" reads as TypeWebhook); Broker is
	// set for the broker types, whose URL is the broker's (never with
	// credentials).
	Type                      Type
	Broker                    *Broker
	Name                      string
	URL                       string
	EventTypes                []string
	IncludePreviousAttributes bool
	// SignatureScheme is fixed at creation (see SignatureScheme).
	SignatureScheme SignatureScheme
	// PublicKey is the "whpk_…" key that verifies ed25519 signatures; ""
	// for the HMAC schemes, whose secret is never readable.
	PublicKey string
	State     State
	// StateReason says why a webhook is disabled or failed verification
	// (e.g. "verification: status 500", "endpoint answered 410 Gone").
	StateReason string
	// RotationEndsAt is the end of the open secret rotation window, if any
	// (the store loads the end as saved; RotationLasts decides).
	RotationEndsAt *time.Time
	FailingSince   *time.Time
	CreatedAt      time.Time
	UpdatedAt      time.Time
}

// Input is create/update input; nil fields are left unchanged on update.
type Input struct {
	Name                      *string
	URL                       *string
	EventTypes                []string // nil: unchanged on update
	SubsidiaryID              *uuid.UUID
	IncludePreviousAttributes *bool
	// SignatureScheme is taken on create (nil: SchemeService); an update
	// may only repeat the webhook's own.
	SignatureScheme *SignatureScheme
	// Type, Broker and Credentials are taken on create (nil Type: a
	// webhook); a broker destination's may not change afterwards.
	Type        *Type
	Broker      *Broker
	Credentials *Credentials
}

// Limits of webhook input (docs/security.md: every input bounded).
const (
	MaxNameLen               = 200
	MaxURLLen                = 2048
	MaxPerTenant             = 100
	DefaultRotationWindow    = 24 * time.Hour
	MaxRotationWindow        = 7 * 24 * time.Hour
	VerificationTimeout      = 3 * time.Second
	SecretPrefix             = "whsec_"
	webhookSecretRandomBytes = 32
)

// ValidateInput checks in against docs/api-contract.md §2.8 for create (creating true:
// every required field present) or update. allowInsecure is the development
// flag that admits http:// and loopback endpoints.
func ValidateInput(in Input, creating, allowInsecure bool) error {
	var v domain.Validation
	validateWebhookInput(&v, in, creating, allowInsecure)
	return v.Err()
}

func validateWebhookInput(v *domain.Validation, in Input, creating, allowInsecure bool) {
	validateCommonInput(v, in, creating)
	if in.URL != nil || creating {
		if in.URL == nil || *in.URL == "" {
			v.Add("url", "url is required")
		} else if msg := checkWebhookURL(*in.URL, allowInsecure); msg != "" {
			v.Add("url", msg)
		}
	}
}

// validateCommonInput checks what every destination type has: its name,
// event types, signature scheme and subsidiary.
func validateCommonInput(v *domain.Validation, in Input, creating bool) {
	if in.Name != nil || creating {
		switch {
		case in.Name == nil || strings.TrimSpace(*in.Name) == "":
			v.Add("name", "name is required")
		case domain.Length(*in.Name) > MaxNameLen:
			v.Add("name", fmt.Sprintf("name must be at most %d characters", MaxNameLen))
		}
	}
	if in.EventTypes != nil || creating {
		if len(in.EventTypes) == 0 {
			v.Add("eventTypes", "at least one event type is required")
		}
		domain.CheckEventTypeList(v, "eventTypes", in.EventTypes)
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
	u, msg := checkAddressURL(raw, webhookSchemes, allowInsecure)
	if msg == "" && u.User != nil {
		return "url must not contain credentials"
	}
	return msg
}

// urlSchemes are a destination type's URL schemes: the one with TLS, and
// the plain one the development flag admits for loopback.
type urlSchemes struct{ secure, plain string }

var webhookSchemes = urlSchemes{"https", "http"}

// checkAddressURL is the address rule of every destination's URL: an
// absolute URL of RFC 3986 characters, with TLS (secure) unless the
// development flag admits plain for loopback, on a public address.
func checkAddressURL(raw string, schemes urlSchemes, allowInsecure bool) (*url.URL, string) {
	if domain.Length(raw) > MaxURLLen {
		return nil, fmt.Sprintf("url must be at most %d characters", MaxURLLen)
	}
	for _, c := range raw {
		if !uriChar(c) {
			return nil, "url must be an absolute URL of RFC 3986 characters (percent-encode others)"
		}
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Hostname() == "" {
		return nil, "url must be an absolute URL"
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, "url port must be between 1 and 65535"
		}
	}
	host := u.Hostname()
	addr, isIP := netip.ParseAddr(host)
	loopback := (isIP == nil && addr.IsLoopback()) || strings.EqualFold(host, "localhost")
	switch {
	case u.Scheme == schemes.secure:
	case u.Scheme == schemes.plain && allowInsecure && loopback:
	default:
		return nil, "url must use " + schemes.secure
	}
	if isIP == nil && !AddrAllowed(addr, allowInsecure) {
		return nil, msgNotPublic
	}
	if strings.EqualFold(host, "localhost") && !allowInsecure {
		return nil, msgNotPublic
	}
	return u, ""
}

// NewSecret returns "whsec_" + base64 of 32 random bytes (≥ 256 bits).
func NewSecret() string {
	b := make([]byte, webhookSecretRandomBytes)
	if _, err := rand.Read(b); err != nil {
		panic("domain: no randomness: " + err.Error())
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// Delivery is one event to deliver to one webhook, with its attempts.
type Delivery struct {
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
	Attempts        []Attempt
}

// Delivery statuses.
const (
	DeliveryPending   = "Pending"
	DeliveryDelivered = "Delivered"
	DeliveryFailed    = "Failed"
)

// Attempt is one logged HTTP attempt (kept 30 days).
type Attempt struct {
	ID          uuid.UUID
	Attempt     int
	StatusCode  *int
	LatencyMS   int
	Error       string
	AttemptedAt time.Time
	// SignatureScheme is what this attempt was signed with.
	SignatureScheme SignatureScheme
}

// DeliveryRetrySchedule is the delay before each retry (docs/webhooks.md,
// Retries); after the last one fails the delivery is Failed. The one
// default: Deliveries uses it when given no Schedule.
var DeliveryRetrySchedule = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// MaxDeliveryAttempts bounds a delivery's attempts: the first and one per
// retry of DeliveryRetrySchedule, after which NextRetry gives up.
var MaxDeliveryAttempts = 1 + len(DeliveryRetrySchedule)

// DeliveryTimeout bounds one delivery attempt: the one default, Deliveries
// uses it when given no Timeout.
const DeliveryTimeout = 15 * time.Second

// RotationLasts reports whether a secret rotation ending at ends is still
// open at now: the previous secret counts (signs deliveries, is shown)
// only until then.
func RotationLasts(ends *time.Time, now time.Time) bool {
	return ends != nil && ends.After(now)
}

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

// uriChar reports whether c may appear in an RFC 3986 URI (unreserved,
// reserved or the percent sign of an escape): format uri's alphabet.
func uriChar(c rune) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.ContainsRune("-._~:/?#[]@!$&'()*+,;=%", c)
}
