package contract

import (
	"bytes"
	"fmt"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/haulgraph/haulgraph/contract/eventschema"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
)

// Validator checks emitted payloads against the published documents: an
// envelope (webhook body, events API item) against the AsyncAPI document's
// schema and the event type's JSON Schema, a subscription result against
// the AsyncAPI document's result schema. Safe for concurrent use.
type Validator struct {
	envelopes map[string][]*jsonschema.Schema
	results   map[string]*jsonschema.Schema
}

const asyncapiURL = "urn:haulgraph:asyncapi"

// NewValidator compiles the schemas of every event type and channel.
func NewValidator() (*Validator, error) {
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(AsyncAPIJSON))
	if err != nil {
		return nil, err
	}
	if err := c.AddResource(asyncapiURL, doc); err != nil {
		return nil, err
	}
	v := &Validator{envelopes: map[string][]*jsonschema.Schema{}, results: map[string]*jsonschema.Schema{}}
	for _, t := range eventschema.EventTypes() {
		raw := EventSchema(t)
		if raw == nil {
			return nil, fmt.Errorf("no JSON Schema for %s", t)
		}
		sdoc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return nil, err
		}
		url := eventschema.SchemaBase + t + ".json"
		if err := c.AddResource(url, sdoc); err != nil {
			return nil, err
		}
		own, err := c.Compile(url)
		if err != nil {
			return nil, err
		}
		inDoc, err := c.Compile(asyncapiURL + "#/components/schemas/" + eventschema.EnvelopeName(t))
		if err != nil {
			return nil, err
		}
		v.envelopes[t] = []*jsonschema.Schema{inDoc, own}
	}
	for field, t := range eventschema.SubscriptionFields {
		s, err := c.Compile(asyncapiURL + "#/components/schemas/" + eventschema.SubscriptionResultName(field))
		if err != nil {
			return nil, err
		}
		v.results[t] = s
	}
	return v, nil
}

// Validate checks body, emitted on channel as an event of eventType.
func (v *Validator) Validate(channel, eventType string, body []byte) error {
	var schemas []*jsonschema.Schema
	switch channel {
	case eventschema.ChannelWebhook, eventschema.ChannelEventsAPI, eventlog.ChannelOutbox, eventschema.ChannelNATS, eventschema.ChannelRabbitMQ:
		schemas = v.envelopes[eventType]
		if channel != eventschema.ChannelWebhook && eventType == domain.EventWebhookVerification {
			schemas = nil
		}
	case eventschema.ChannelGraphQLWS, eventschema.ChannelGraphQLSSE:
		if s := v.results[eventType]; s != nil {
			schemas = []*jsonschema.Schema{s}
		}
	default:
		return fmt.Errorf("unknown channel %q", channel)
	}
	if schemas == nil {
		return fmt.Errorf("channel %s carries no event type %q", channel, eventType)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("%s %s: not JSON: %w", channel, eventType, err)
	}
	for _, s := range schemas {
		if err := s.Validate(inst); err != nil {
			return fmt.Errorf("%s %s does not match %s: %w", channel, eventType, s.Location, err)
		}
	}
	return nil
}
