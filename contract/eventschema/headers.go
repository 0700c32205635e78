package eventschema

import (
	"strings"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/webhooksig"
)

// Header is one HTTP header of a webhook request.
type Header struct {
	Name        string
	Required    bool
	Schema      S
	Description string
}

const (
	schemeService  = "Sent with the `service` signature scheme (the default)."
	schemeStandard = "Sent with the `standard-webhooks` and `standard-webhooks-ed25519` signature schemes (Standard Webhooks 1.0)."
)

// Headers are the headers of a request carrying eventType, in order.
func Headers(eventType string) []Header {
	ua := Header{"User-Agent", true, S{"type": "string", "const": "Service-Webhook/1.0"}, "Identifies the sender."}
	trace := Header{"traceparent", true, S{"type": "string", "pattern": "^00-[0-9a-f]{32}-[0-9a-f]{16}-01$", "maxLength": 55}, "W3C Trace Context of the write that emitted the event."}
	event := Header{webhooksig.EventHeader, true, S{"type": "string", "const": eventType}, "The event type, as in the body's type."}
	if eventType == domain.EventWebhookVerification {
		return []Header{event, {"X-Service-Challenge", true, S{"type": "string", "maxLength": 256}, "The challenge to echo back; the same as the body's challenge."}, ua, trace}
	}
	unix := S{"type": "string", "pattern": "^[0-9]{1,19}$", "maxLength": 19}
	return []Header{
		event,
		{webhooksig.EventIDHeader, true, S{"$ref": "EventId"}, "The event id, as in the body's id: the key to deduplicate on."},
		{webhooksig.SignatureHeader, false, S{"type": "string", "pattern": "^t=[0-9]+,v1=[0-9a-f]{64}(,v0=[0-9a-f]{64})?$", "maxLength": 200},
			schemeService + " `t=<timestamp>,v1=<hex HMAC-SHA256 of \"<timestamp>.<body>\">`, plus `,v0=` signed with the previous secret during a rotation."},
		{webhooksig.TimestampHeader, false, unix, schemeService + " Unix seconds of the attempt, as in the signature's t."},
		{webhooksig.DeliveryHeader, false, S{"type": "string", "format": "uuid", "maxLength": 36}, "The attempt's id: different on every retry."},
		{"webhook-id", false, S{"$ref": "EventId"}, schemeStandard + " The event id."},
		{"webhook-timestamp", false, unix, schemeStandard + " Unix seconds of the attempt."},
		{"webhook-signature", false, S{"type": "string", "pattern": "^v1a?,[A-Za-z0-9+/=]+( v1a?,[A-Za-z0-9+/=]+)*$", "maxLength": 400},
			schemeStandard + " `v1,<base64 HMAC-SHA256>` or `v1a,<base64 Ed25519>` of `<webhook-id>.<webhook-timestamp>.<body>`; during a rotation two, space-separated."},
		ua, trace,
	}
}

// headerSchema resolves a header's schema in the document being built.
func headerSchema(h Header, ref Refs) S {
	if r, ok := h.Schema["$ref"].(string); ok {
		return S{"$ref": ref(r)}
	}
	return h.Schema
}

// BrokerHeaders are the headers of a message eventType published to a
// broker destination: the webhook request's of the Standard Webhooks
// schemes (a broker destination signs with those alone, so they are
// required), named in lower case, and content-type.
func BrokerHeaders(eventType string) []Header {
	out := []Header{{"content-type", true, S{"type": "string", "const": "application/json; charset=utf-8"}, "The body's media type."}}
	for _, h := range Headers(eventType) {
		switch h.Name {
		case webhooksig.SignatureHeader, webhooksig.TimestampHeader:
			continue
		case "webhook-id", "webhook-timestamp", "webhook-signature":
			h.Required, h.Description = true, strings.TrimPrefix(h.Description, schemeStandard+" ")
		}
		h.Name = strings.ToLower(h.Name)
		out = append(out, h)
	}
	return out
}
