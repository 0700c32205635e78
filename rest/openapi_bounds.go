package rest

import (
	"fmt"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/reads"
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
	keyword := uint64(reads.MaxKeywordLength)
	prop("UserSearch", "Keyword").MaxLength = &keyword
	window := doc.Components.Schemas["StatementSearch"].Value.Properties["StatementDateRange"].Value
	for _, bound := range []string{"Start", "End"} {
		window.Properties[bound].Value.Pattern = reads.WholeUTCDayPattern
	}
	driverType := prop("StatementSearch", "DriverType")
	driverType.Pattern = anyCasePattern(domain.DriverTypes)
	longest := uint64(0)
	for _, t := range domain.DriverTypes {
		longest = max(longest, uint64(len(t)))
	}
	driverType.MaxLength = &longest
}

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
// enum, const or pattern of its own (those already exclude them), domain's
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
