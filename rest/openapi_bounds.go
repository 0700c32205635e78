package rest

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/domain/reads"
	"github.com/haulgraph/haulgraph/domain/webhooks"
)

// addDomainBounds writes into the document the bounds domain enforces, so
// that each is stated from the constant that enforces it.
func addDomainBounds(doc *openapi3.T) {
	prop := func(schema, name string) *openapi3.Schema {
		return doc.Components.Schemas[schema].Value.Properties[name].Value
	}
	maxPage, maxSize := float64(domain.MaxPage), float64(domain.MaxPageSize)
	for _, s := range []string{"StatementSearch", "LocationSearch", "UserSearch"} {
		prop(s, "Page").Max = &maxPage
		prop(s, "PageSize").Max = &maxSize
	}
	eventTypes := uint64(len(domain.EventTypes))
	for _, s := range []string{"WebhookCreate", "WebhookUpdate", "EventDestinationCreate"} {
		prop(s, "EventTypes").MaxItems = &eventTypes
	}
	if p := doc.Paths.Value(Prefix+"v1/events").Get.Parameters.GetByInAndName("query", "type"); p != nil {
		p.Schema.Value.MaxItems = &eventTypes
		p.Schema.Value.UniqueItems = true
	}
	statuses := uint64(len(reads.LocationStatuses))
	prop("LocationSearch", "Status").MaxItems = &statuses
	ids := uint64(domain.MaxPageSize)
	prop("LocationSearch", "LocationIds").MaxItems = &ids
	for _, f := range domain.OAuthFields {
		for _, s := range []string{"TokenRequest", "RevokeRequest"} {
			if p, ok := doc.Components.Schemas[s].Value.Properties[f.Name]; ok {
				n := uint64(f.MaxLength)
				p.Value.MaxLength = &n
			}
		}
	}
	// x-within: recover's Since is a time of the last 30 days, not later
	// than the request (ISO 8601 durations around the request's time).
	prop("Recover", "Since").Extensions = map[string]any{"x-within": map[string]any{
		"past": fmt.Sprintf("P%dD", webhooks.MaxRecoverAge/(24*time.Hour)), "future": "PT0S"}}
	keyword := uint64(reads.MaxKeywordLength)
	prop("UserSearch", "Keyword").MaxLength = &keyword
	window := doc.Components.Schemas["StatementSearch"].Value.Properties["StatementDateRange"].Value
	for _, bound := range []string{"Start", "End"} {
		window.Properties[bound].Value.Pattern = reads.WholeUTCDayPattern
	}
	doc.Components.Schemas["EventCursor"].Value.Pattern = eventCursorPattern
	cursor := uint64(domain.MaxCursorLength)
	doc.Components.Schemas["Cursor"].Value.MaxLength = &cursor
	// The statement filters' DriverType: one rule (domain.ParseDriverType)
	// for the search's body and the export's query.
	longest := uint64(0)
	for _, t := range domain.DriverTypes {
		longest = max(longest, uint64(len(t)))
	}
	for _, driverType := range []*openapi3.Schema{prop("StatementSearch", "DriverType"), doc.Components.Schemas["DriverTypeFilter"].Value} {
		driverType.Pattern = anyCasePattern(domain.DriverTypes)
		driverType.MaxLength = &longest
	}
	for _, path := range []string{Prefix + "v1/loads/{loadNumber}", Prefix + "v1/loads/{loadNumber}/document"} {
		for _, op := range doc.Paths.Value(path).Operations() {
			p := op.Parameters.GetByInAndName("path", "loadNumber")
			// Lookups admit the numbers other writers stored, so the rule of
			// new numbers is stated beside the schema, not as its pattern.
			p.Schema.Value.Extensions = map[string]any{"x-created-pattern": domain.IdentifierPattern}
		}
	}
}

// nonBlankText is domain's text rule (TextPattern) with at least one
// character that is not white space: a string the server reads as not
// given when blank (minLength 1) states it so.
const nonBlankText = "^[^" + domain.TextControls + "]*[^" + domain.TextControls + spaces + "][^" + domain.TextControls + "]*$"

// eventCursorPattern is an events API after: an event's sealed cursor
// (base64url characters) or its id, white space around either ignored, or
// blank (not given).
var eventCursorPattern = fmt.Sprintf("^%s([A-Za-z0-9_-]{%d}|%s)?%s$", trimmed, eventlog.EventCursorLength, eventlog.EventIDPattern, trimmed)

// anyCasePattern matches exactly one of values, letters in either case.
func anyCasePattern[T ~string](values []T) string {
	alts := make([]string, len(values))
	for i, v := range values {
		var b strings.Builder
		for _, r := range string(v) {
			if lo, up := strings.ToLower(string(r)), strings.ToUpper(string(r)); lo != up {
				b.WriteString("[" + up + lo + "]")
			} else {
				b.WriteRune(r)
			}
		}
		alts[i] = b.String()
	}
	return "^(" + strings.Join(alts, "|") + ")$"
}

// addTextRule states domain's text rule (no control characters but tab and
// line breaks) as the pattern of every request string that has no format,
// enum, const or pattern of its own (those already exclude them; with
// minLength 1, not blank either, here and in x-parameters), domain's
// date-time rule as the pattern of a request date-time, and the body bound
// on every JSON request body.
func addTextRule(doc *openapi3.T) {
	seen := map[*openapi3.Schema]bool{}
	var walk func(ref *openapi3.SchemaRef)
	walk = func(ref *openapi3.SchemaRef) {
		if ref == nil || ref.Value == nil || seen[ref.Value] {
			return
		}
		s := ref.Value
		seen[s] = true
		switch {
		case !s.Type.Includes(openapi3.TypeString) || s.Enum != nil || s.Const != nil || s.Pattern != "" || s.ContentMediaType != "":
		case s.Format == "" && s.MinLength > 0:
			s.Pattern = nonBlankText
		case s.Format == "":
			s.Pattern = domain.TextPattern
		case s.Format == "date-time":
			// RFC 3339 admits any number of fractional digits; domain reads
			// at most nanoseconds.
			s.Pattern = domain.DateTimePattern
		}
		walk(s.Items)
		for _, list := range []openapi3.SchemaRefs{s.OneOf, s.AnyOf, s.AllOf} {
			for _, r := range list {
				walk(r)
			}
		}
		names := make([]string, 0, len(s.Properties))
		for n := range s.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			walk(s.Properties[n])
		}
	}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		item := doc.Paths.Value(path)
		for _, p := range item.Parameters {
			walk(p.Value.Schema)
		}
		for _, op := range item.Operations() {
			for _, p := range op.Parameters {
				walk(p.Value.Schema)
			}
			nonBlankRaw(op.Extensions["x-parameters"])
			if op.RequestBody == nil {
				continue
			}
			body := op.RequestBody.Value
			for mt, m := range body.Content {
				walk(m.Schema)
				if strings.HasPrefix(path, Prefix) && strings.HasPrefix(mt, "application/json") && !strings.Contains(body.Description, "bytes") {
					body.Description = strings.TrimSpace(body.Description + fmt.Sprintf(
						" At most %d bytes; a larger body answers 413.", MaxJSONBody))
				}
			}
		}
	}
}

// nonBlankRaw gives every schema of an x-parameters rule (decoded JSON)
// that asks for minLength 1 the pattern of a value that is not blank: a
// blank parameter is not given.
func nonBlankRaw(v any) {
	switch x := v.(type) {
	case map[string]any:
		if n, ok := x["minLength"].(float64); ok && n > 0 && x["pattern"] == nil {
			x["pattern"] = nonBlankText
		}
		for _, e := range x {
			nonBlankRaw(e)
		}
	case []any:
		for _, e := range x {
			nonBlankRaw(e)
		}
	}
}
