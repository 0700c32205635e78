package rest

import (
	"time"

	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// The PascalCase shapes of REST webhook management; conversions only.

type webhookJSON struct {
	Id                        string     `json:"Id"` //nolint:revive // the REST names
	Name                      string     `json:"Name"`
	Url                       string     `json:"Url"` //nolint:revive
	EventTypes                []string   `json:"EventTypes"`
	SubsidiaryId              string     `json:"SubsidiaryId"` //nolint:revive
	IncludePreviousAttributes bool       `json:"IncludePreviousAttributes"`
	SignatureScheme           string     `json:"SignatureScheme"`
	PublicKey                 *string    `json:"PublicKey"` // ed25519 only
	State                     string     `json:"State"`
	StateLabel                string     `json:"StateLabel"`
	StateReason               string     `json:"StateReason"`
	RotationEndsAt            *time.Time `json:"RotationEndsAt"`
	CreatedAt                 time.Time  `json:"CreatedAt"`
	UpdatedAt                 time.Time  `json:"UpdatedAt"`
}

func toWebhookJSON(w *webhooks.Webhook) webhookJSON {
	out := webhookJSON{Id: w.ID.String(), Name: w.Name, Url: w.URL, EventTypes: nonNil(w.EventTypes),
		SubsidiaryId: w.SubsidiaryID.String(), IncludePreviousAttributes: w.IncludePreviousAttributes,
		SignatureScheme: string(w.SignatureScheme), State: string(w.State),
		StateLabel: w.StateLabel(), StateReason: w.StateReason, RotationEndsAt: w.RotationEndsAt, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt}
	if w.PublicKey != "" {
		out.PublicKey = &w.PublicKey
	}
	return out
}

// webhookWithSecretJSON answers create and rotate-secret: the only answers
// that show the signing secret. An ed25519 webhook has none to show (its
// private key never leaves the server): Secret is absent, PublicKey is set.
type webhookWithSecretJSON struct {
	webhookJSON
	Secret string `json:"Secret,omitempty"`
}

type attemptJSON struct {
	Id          string    `json:"Id"` //nolint:revive
	Attempt     int       `json:"Attempt"`
	StatusCode  *int      `json:"StatusCode"`
	LatencyMs   int       `json:"LatencyMs"`
	Error       string    `json:"Error"`
	AttemptedAt time.Time `json:"AttemptedAt"`
	// SignatureScheme is what the attempt was signed with.
	SignatureScheme string `json:"SignatureScheme"`
}

type deliveryJSON struct {
	Id            string     `json:"Id"`      //nolint:revive
	EventId       string     `json:"EventId"` //nolint:revive
	EventType     string     `json:"EventType"`
	Status        string     `json:"Status"`
	Attempt       int        `json:"Attempt"`
	NextAttemptAt *time.Time `json:"NextAttemptAt"`
	CreatedAt     time.Time  `json:"CreatedAt"`
	// SignatureScheme is the webhook's when the delivery was queued.
	SignatureScheme string        `json:"SignatureScheme"`
	Attempts        []attemptJSON `json:"Attempts"`
}

func toDeliveryJSON(d *webhooks.Delivery) deliveryJSON {
	out := deliveryJSON{Id: d.ID.String(), EventId: d.EventID, EventType: d.EventType, Status: d.Status, Attempt: d.Attempt,
		NextAttemptAt: d.NextAttemptAt, CreatedAt: d.CreatedAt, SignatureScheme: string(d.SignatureScheme), Attempts: make([]attemptJSON, len(d.Attempts))}
	for i, a := range d.Attempts {
		out.Attempts[i] = attemptJSON{Id: a.ID.String(), Attempt: a.Attempt, StatusCode: a.StatusCode, LatencyMs: a.LatencyMS,
			Error: a.Error, AttemptedAt: a.AttemptedAt, SignatureScheme: string(a.SignatureScheme)}
	}
	return out
}

// webhookBody is the body of POST /webhooks and PATCH /webhooks/{id};
// pointers keep "absent" apart from zero (absent fields do not change).
type webhookBody struct {
	Name                      *string  `json:"Name"`
	Url                       *string  `json:"Url"` //nolint:revive
	EventTypes                []string `json:"EventTypes"`
	SubsidiaryId              *string  `json:"SubsidiaryId"` //nolint:revive
	IncludePreviousAttributes *bool    `json:"IncludePreviousAttributes"`
	// SignatureScheme: service (default), standard-webhooks or
	// standard-webhooks-ed25519; fixed once created.
	SignatureScheme *string `json:"SignatureScheme"`
}

type rotateBody struct {
	// RotationWindow is in seconds (default 86400, 0: none).
	RotationWindow *number `json:"RotationWindow"`
}

type recoverBody struct {
	Since *string `json:"Since"`
}

type recoveredJSON struct {
	// Requeued is how many failed deliveries are due again.
	Requeued int `json:"Requeued"`
}

// webhookFields names domain's (GraphQL's) fields as REST's.
var webhookFields = map[string]string{"name": "Name", "url": "Url", "eventTypes": "EventTypes", "subsidiaryId": "SubsidiaryId",
	"includePreviousAttributes": "IncludePreviousAttributes", "rotationWindow": "RotationWindow", "first": "limit",
	"since": "Since", "eventId": "deliveryId", "signatureScheme": "SignatureScheme",
	// the event-destination routes' own
	"type": "Type", "subjectPrefix": "SubjectPrefix", "exchange": "Exchange", "routingKey": "RoutingKey", "credentials": "Credentials"}
