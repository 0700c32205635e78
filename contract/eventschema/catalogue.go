// Package eventschema builds the event catalogue: a JSON Schema per event
// type, the OpenAPI webhooks section and the AsyncAPI document, from
// domain's vocabularies and the GraphQL schema. go generate writes them into
// contract/, which serves and validates with the files.
package eventschema

import (
	"fmt"
	"maps"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/loads"
)

// S is a schema or document object.
type S = map[string]any

// Refs names where a definition lives in the document being built.
type Refs func(name string) string

// Definition names shared by every rendering (in OpenAPI they get Prefix).
const (
	DefLoad       = "Load"
	DefStop       = "Stop"
	DefAddress    = "Address"
	DefMoney      = "Money"
	DefTrip       = "Trip"
	DefChange     = "Change"
	DefLoadDiff   = "LoadDiff"
	DefTripDiff   = "TripDiff"
	DefLoadPrev   = "LoadPreviousAttributes"
	DefTripPrev   = "TripPreviousAttributes"
	DefEventID    = "EventId"
	DefTimestamp  = "EventTimestamp"
	DefUUID       = "Uuid"
	DefDateTime   = "DateTime"
	DefLoadStatus = "LoadStatus"
	DefBilling    = "BillingStatus"
	DefStopType   = "StopType"
	DefChangeKind = "ChangeKind"
	DefFieldName  = "ChangedField"
)

// Since is the keyword marking a field a release added to an event after
// its type was published (its value: that release). Such a field is never
// required: events are history, read as they were written, and those of
// earlier releases (the events API keeps 30 days; during a rolling upgrade
// the previous release still writes) lack it.
const Since = "x-since"

// since marks s as added by release version and says so in its description.
func since(version string, s S) S {
	out := maps.Clone(s)
	out[Since] = version
	out["description"] = strings.TrimSpace(fmt.Sprint(s["description"]) + " Added in " + version + ": events written before lack it.")
	return out
}

// Envelope definition names, one per event type.
var envelopeNames = map[string]string{
	domain.EventLoadChanged:         "LoadChangedEvent",
	domain.EventLoadStatusChanged:   "LoadStatusChangedEvent",
	domain.EventTripChanged:         "TripChangedEvent",
	domain.EventWebhookVerification: "WebhookVerificationEvent",
}

// EventTypes are every type of the catalogue: the business events, then the
// verification request.
func EventTypes() []string {
	return append(append([]string{}, domain.EventTypes...), domain.EventWebhookVerification)
}

// EnvelopeName is the definition name of eventType's body.
func EnvelopeName(eventType string) string { return envelopeNames[eventType] }

func strs[T ~string](xs []T) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

func nullable(s S) S {
	out := S{}
	for k, v := range s {
		out[k] = v
	}
	out["type"] = []any{s["type"], "null"}
	return out
}

// object is a closed object of props; of the names listed, those not
// marked Since are required.
func object(names []string, props S) S {
	req := []any{}
	for _, n := range names {
		if p, ok := props[n].(S); !ok || p[Since] == nil {
			req = append(req, n)
		}
	}
	return S{"type": "object", "required": req, "properties": props, "additionalProperties": false}
}

// Definitions are the schemas every event body is made of.
func Definitions(ref Refs) map[string]S {
	r := func(name string) S { return S{"$ref": ref(name)} }
	str := S{"type": "string"}
	uuidS := r(DefUUID)
	nullUUID := S{"type": []any{"string", "null"}, "format": "uuid", "maxLength": 36}
	nullTime := S{"type": []any{"string", "null"}, "format": "date-time", "maxLength": 40}
	loadFields := S{
		"Id":             uuidS,
		"LoadNumber":     str,
		"Status":         r(DefLoadStatus),
		"BillingStatus":  r(DefBilling),
		"SubsidiaryId":   uuidS,
		"SubsidiaryName": str,
		"CustomerId":     nullUUID,
		"CustomerName":   since("v0.29.0", S{"type": []any{"string", "null"}, "description": "The customer's name; null when the load has no customer."}),
		"OrderNumber":    str,
		"PONumber":       str,
		"Source":         str,
		"Rate":           r(DefMoney),
		"Weight":         S{"type": []any{"number", "null"}, "format": "double", "description": "Exact decimal (up to 10 integer and 2 fraction digits), rendered as a JSON number."},
		"Commodity":      str,
		"EquipmentType":  str,
		"Stops":          S{"type": "array", "items": r(DefStop), "maxItems": loads.MaxStops},
		"Trips":          S{"type": "array", "items": r(DefTrip), "maxItems": loads.MaxTrips},
		"CreatedAt":      r(DefDateTime),
		"UpdatedAt":      r(DefDateTime),
	}
	loadOrder := []string{"Id", "LoadNumber", "Status", "BillingStatus", "SubsidiaryId", "SubsidiaryName", "CustomerId",
		"CustomerName", "OrderNumber", "PONumber", "Source", "Rate", "Weight", "Commodity", "EquipmentType", "Stops", "Trips", "CreatedAt", "UpdatedAt"}
	tripFields := S{
		"Id":         uuidS,
		"TripNumber": str,
		"Status":     S{"type": "string", "description": "The trip's status as the dispatch system names it."},
		"DriverIds":  S{"type": "array", "items": uuidS, "maxItems": loads.MaxTripDrivers},
		"TruckId":    nullUUID,
		"TrailerId":  nullUUID,
		"CarrierId":  nullUUID,
	}
	tripOrder := []string{"Id", "TripNumber", "Status", "DriverIds", "TruckId", "TrailerId", "CarrierId"}
	prev := func(fields S, names []domain.Field) S {
		props := S{}
		for _, f := range names {
			props[string(f)] = fields[string(f)]
		}
		return S{"type": "object", "properties": props, "additionalProperties": false,
			"description": "The values the changed fields had before the write, by their snapshot name; present only when the consumer asked for previous attributes."}
	}
	targetIDs := strs(domain.ChangeTargets())
	target := object([]string{"type", "id"}, S{
		"type": S{"const": domain.ChangeTargetField, "type": "string"},
		"id":   r(DefFieldName),
	})
	change := object([]string{"kind"}, S{"kind": r(DefChangeKind), "target": target})
	change["description"] = "One change of the write: StatusChanged, RateChanged, or FieldChanged with the field as its target."
	// target exactly when the kind is FieldChanged. Each branch declares
	// the property it requires (ajv's strictRequired).
	hasTarget := S{"properties": S{"target": target}, "required": []any{"target"}}
	change["if"] = S{"properties": S{"kind": S{"const": domain.ChangeField}}, "required": []any{"kind"}}
	change["then"] = hasTarget
	change["else"] = S{"not": hasTarget}
	diff := func(prevDef string, fields int) S {
		return object([]string{"changes"}, S{
			"changes":            S{"type": "array", "items": r(DefChange), "minItems": 1, "maxItems": fields},
			"previousAttributes": r(prevDef),
		})
	}
	return map[string]S{
		DefUUID:       {"type": "string", "format": "uuid", "maxLength": 36},
		DefDateTime:   {"type": "string", "format": "date-time", "maxLength": 40},
		DefEventID:    {"type": "string", "pattern": `^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}-[0-9]{1,3}$`, "maxLength": 40, "description": "<uuid of the write>-<n>: unique per event; the same on every redelivery."},
		DefTimestamp:  {"type": "string", "format": "date-time", "pattern": `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\+00:00$`, "maxLength": 32, "description": "When the write committed, UTC with microseconds and an explicit +00:00 offset."},
		DefLoadStatus: {"type": "string", "enum": strs(domain.LoadStatuses)},
		DefBilling:    {"type": "string", "enum": strs(domain.BillingStatuses)},
		DefStopType:   {"type": "string", "enum": strs(domain.StopTypes)},
		DefChangeKind: {"type": "string", "enum": []any{domain.ChangeStatus, domain.ChangeRate, domain.ChangeField}},
		// x-enum-varnames: code generators (oapi-codegen) name an enum's
		// constants by its values, and these values are also type names
		// (BillingStatus): prefixed names keep a generated client compiling.
		// The JSON Schema files leave vendor keywords out (EventSchema).
		DefFieldName: {"type": "string", "enum": targetIDs, "x-enum-varnames": prefixed(DefFieldName, targetIDs),
			"description": "The changed field's snapshot name, or " + string(domain.FieldDocuments) + ": a document was added to the load " +
				"or to one of its trips (the snapshot does not carry documents, so previousAttributes never names it)."},
		DefMoney: object([]string{"Amount", "Currency"}, S{
			"Amount":   S{"type": "number", "format": "double", "description": "Exact decimal amount, rendered as a JSON number (read it as a decimal, not a float)."},
			"Currency": S{"type": []any{"integer", "null"}, "format": "int32", "minimum": 0, "maximum": 999, "description": "ISO 4217 numeric currency code."},
		}),
		DefAddress: object([]string{"Street", "City", "State", "ZipCode"}, S{"Street": str, "City": str, "State": str, "ZipCode": str}),
		DefStop: object([]string{"Sequence", "Type", "LocationId", "Name", "Address", "AppointmentStart", "AppointmentEnd", "ArrivedAt", "DepartedAt"}, S{
			"Sequence":         S{"type": "integer", "format": "int32", "minimum": 0, "maximum": loads.MaxStops},
			"Type":             r(DefStopType),
			"LocationId":       nullUUID,
			"Name":             str,
			"Address":          r(DefAddress),
			"AppointmentStart": nullTime,
			"AppointmentEnd":   nullTime,
			"ArrivedAt":        nullTime,
			"DepartedAt":       nullTime,
		}),
		DefLoad:     object(loadOrder, loadFields),
		DefTrip:     object(tripOrder, tripFields),
		DefChange:   change,
		DefLoadPrev: prev(loadFields, loads.LoadDiffFields()),
		DefTripPrev: prev(tripFields, loads.TripDiffFields()),
		DefLoadDiff: diff(DefLoadPrev, len(loads.LoadDiffFields())),
		DefTripDiff: diff(DefTripPrev, len(loads.TripDiffFields())),

		envelopeNames[domain.EventLoadChanged]: envelope(ref, domain.EventLoadChanged, "A load was created or changed: the load after the write, and (except on creation) what changed.",
			object([]string{"load"}, S{"load": r(DefLoad), "diff": r(DefLoadDiff)})),
		envelopeNames[domain.EventLoadStatusChanged]: envelope(ref, domain.EventLoadStatusChanged, "A load's status changed (sent after the write's load.changed): the load after the write.",
			object([]string{"load"}, S{"load": r(DefLoad)})),
		envelopeNames[domain.EventTripChanged]: envelope(ref, domain.EventTripChanged, "A trip's assignments changed: the trip, its load after the write, and what changed.",
			object([]string{"load", "trip", "diff"}, S{"load": r(DefLoad), "trip": r(DefTrip), "diff": r(DefTripDiff)})),
		envelopeNames[domain.EventWebhookVerification]: withDescription(object([]string{"type", "challenge"}, S{
			"type":      S{"type": "string", "const": domain.EventWebhookVerification},
			"challenge": S{"type": "string", "maxLength": 256, "description": "Answer 200 with {\"challenge\": <this value>} within 3 seconds."},
		}), "The verification request sent when a webhook is enabled or its URL changes (not signed)."),
	}
}

func withDescription(s S, d string) S { s["description"] = d; return s }

func envelope(ref Refs, eventType, description string, data S) S {
	return withDescription(object([]string{"id", "type", "timestamp", "version", "data"}, S{
		"id":        S{"$ref": ref(DefEventID)},
		"type":      S{"type": "string", "const": eventType},
		"timestamp": S{"$ref": ref(DefTimestamp)},
		"version":   S{"type": "string", "const": domain.EventPayloadVersion},
		"data":      data,
	}), description)
}

// EventSchema is eventType's body as a standalone JSON Schema (2020-12),
// carrying the definitions it uses; base is the URL it is published at.
func EventSchema(eventType, base string) S {
	defs := Definitions(func(name string) string { return "#/$defs/" + name })
	root := defs[envelopeNames[eventType]]
	used := S{}
	collect(root, defs, used)
	out := S{"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": base + eventType + ".json",
		"title": eventType}
	for k, v := range root {
		out[k] = v
	}
	if len(used) > 0 {
		out["$defs"] = used
	}
	return withoutVendorKeywords(out).(S)
}

// withoutVendorKeywords is schema without the x-* keywords of its schema
// objects: a JSON Schema validator in strict mode (ajv's default) refuses
// keywords it does not know. They stay in the OpenAPI and AsyncAPI
// documents, where code generators read them.
func withoutVendorKeywords(schema any) any {
	switch x := schema.(type) {
	case S:
		out := S{}
		for k, e := range x {
			switch {
			case strings.HasPrefix(k, "x-"):
			case k == "properties" || k == "$defs": // names, not keywords
				named := S{}
				for name, sub := range e.(S) {
					named[name] = withoutVendorKeywords(sub)
				}
				out[k] = named
			default:
				out[k] = withoutVendorKeywords(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = withoutVendorKeywords(e)
		}
		return out
	}
	return schema
}

// collect copies into used every definition v refers to, transitively.
func collect(v any, defs map[string]S, used S) {
	switch x := v.(type) {
	case S:
		if ref, ok := x["$ref"].(string); ok {
			name := ref[len("#/$defs/"):]
			if _, done := used[name]; !done {
				used[name] = defs[name]
				collect(defs[name], defs, used)
			}
		}
		for _, e := range x {
			collect(e, defs, used)
		}
	case []any:
		for _, e := range x {
			collect(e, defs, used)
		}
	}
}

// prefixed is each of values (strings) with prefix in front.
func prefixed(prefix string, values []any) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = prefix + v.(string)
	}
	return out
}
