package rest

import (
	"net/http"

	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// destinationRoutes are REST event-destination management (webhook:manage):
// every type, webhooks included, through the webhook handlers with the
// destination shapes.
func destinationRoutes(svc *webhooks.Service) []Route {
	h := &webhookHandlers{svc: svc, decode: decodeInput[destinationBody], render: renderDestination, renderSecret: renderDestinationSecret}
	return []Route{
		{Method: http.MethodPost, Path: "/event-destinations", Handle: h.create},
		{Method: http.MethodGet, Path: "/event-destinations", Handle: h.list},
		{Method: http.MethodGet, Path: "/event-destinations/{id}", Handle: h.get},
		{Method: http.MethodPatch, Path: "/event-destinations/{id}", Handle: h.update},
		{Method: http.MethodDelete, Path: "/event-destinations/{id}", Handle: h.delete},
		{Method: http.MethodPost, Path: "/event-destinations/{id}/enable", Handle: h.enable},
		{Method: http.MethodPost, Path: "/event-destinations/{id}/disable", Handle: h.disable},
		{Method: http.MethodGet, Path: "/event-destinations/{id}/deliveries", Handle: h.deliveries},
		{Method: http.MethodPost, Path: "/event-destinations/{id}/deliveries/{deliveryId}/redeliver", Handle: h.redeliver},
		{Method: http.MethodPost, Path: "/event-destinations/{id}/recover", Handle: h.recover},
	}
}

// destinationJSON is a destination: a webhook's fields, its type and, for
// a broker, its settings (never its credentials).
type destinationJSON struct {
	webhookJSON
	Type          string  `json:"Type"`
	SubjectPrefix *string `json:"SubjectPrefix,omitempty"`
	Exchange      *string `json:"Exchange,omitempty"`
	RoutingKey    *string `json:"RoutingKey,omitempty"`
}

func toDestinationJSON(w *webhooks.Webhook) destinationJSON {
	out := destinationJSON{webhookJSON: toWebhookJSON(w), Type: string(w.Type)}
	if b := w.Broker; b != nil {
		out.SubjectPrefix, out.Exchange, out.RoutingKey = nonEmpty(b.SubjectPrefix), nonEmpty(b.Exchange), nonEmpty(b.RoutingKey)
	}
	return out
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func renderDestination(w *webhooks.Webhook) any { return toDestinationJSON(w) }
func renderDestinationSecret(w *webhooks.Webhook, secret string) any {
	return destinationWithSecretJSON{toDestinationJSON(w), secret}
}

// destinationWithSecretJSON answers create: the one answer with the
// signing secret.
type destinationWithSecretJSON struct {
	destinationJSON
	Secret string `json:"Secret,omitempty"`
}

// destinationBody is the body of POST /event-destinations and PATCH
// /event-destinations/{id}: a webhook's body, the type, the broker settings
// and the credentials (also accepted in Url: amqps://user:password@host).
type destinationBody struct {
	Name                      *string          `json:"Name"`
	Url                       *string          `json:"Url"` //nolint:revive // the REST names
	EventTypes                []string         `json:"EventTypes"`
	SubsidiaryId              *string          `json:"SubsidiaryId"` //nolint:revive
	IncludePreviousAttributes *bool            `json:"IncludePreviousAttributes"`
	SignatureScheme           *string          `json:"SignatureScheme"`
	Type                      *string          `json:"Type"`
	SubjectPrefix             *string          `json:"SubjectPrefix"`
	Exchange                  *string          `json:"Exchange"`
	RoutingKey                *string          `json:"RoutingKey"`
	Credentials               *credentialsBody `json:"Credentials"`
}

// credentialsBody are a broker's credentials, write only.
type credentialsBody struct {
	Username string `json:"Username"`
	Password string `json:"Password"`
	Token    string `json:"Token"`
	Creds    string `json:"Creds"`
}

func (b destinationBody) input() (webhooks.Input, error) {
	in, err := webhookBody{Name: b.Name, Url: b.Url, EventTypes: b.EventTypes, SubsidiaryId: b.SubsidiaryId,
		IncludePreviousAttributes: b.IncludePreviousAttributes, SignatureScheme: b.SignatureScheme}.input()
	if b.Type != nil {
		t := webhooks.Type(*b.Type)
		in.Type = &t
	}
	if b.SubjectPrefix != nil || b.Exchange != nil || b.RoutingKey != nil {
		in.Broker = &webhooks.Broker{SubjectPrefix: deref(b.SubjectPrefix), Exchange: deref(b.Exchange), RoutingKey: deref(b.RoutingKey)}
	}
	if c := b.Credentials; c != nil {
		in.Credentials = &webhooks.Credentials{Username: c.Username, Password: c.Password, Token: c.Token, Creds: c.Creds}
	}
	return in, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
