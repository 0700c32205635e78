package rest

import (
	"fmt"
	"maps"
	"regexp"
	"sort"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
)

// uploadTargets are the upload operations' targets.
var uploadTargets = map[string]domain.DocumentParentType{
	"uploadLoadDocument":    domain.ParentLoad,
	"uploadTripDocument":    domain.ParentTrip,
	"uploadDriverDocument":  domain.ParentDriver,
	"uploadCarrierDocument": domain.ParentCarrier,
}

// spaces are the characters strings.TrimSpace removes (a regex class's
// contents), written as characters (not escapes) so that any regex dialect
// reads them alike; trimmed is any run of them.
const (
	spaces  = "\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
	trimmed = "[" + spaces + "]*"
)

// addUploadTypes gives each upload operation a form schema of its own
// (DocumentUpload<Target>) stating what documents.Target.CheckDocumentType
// accepts: one of the target's spellings, in any case (Unicode simple
// folding, as strings.EqualFold), with white space around it; and a file
// of at least one byte; and the 409 of a full parent, with its bound.
func addUploadTypes(doc *openapi3.T) {
	doc.Components.Responses["ParentFull"].Value.WithDescription(fmt.Sprintf(
		"the parent already holds %d documents, the most it may; nothing was stored", documents.MaxPerParent))
	base := doc.Components.Schemas["DocumentUpload"].Value
	base.Properties["File"].Value.MinLength = 1
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		op := doc.Paths.Value(path).Post
		if op == nil || op.RequestBody == nil || op.RequestBody.Value.Content["multipart/form-data"] == nil {
			continue
		}
		t, ok := uploadTargets[op.OperationID]
		if !ok {
			panic("rest: upload operation " + op.OperationID + " has no target")
		}
		target := documents.Targets[t]
		s := *base
		s.Properties = maps.Clone(base.Properties)
		dt := *base.Properties["DocumentType"].Value
		dt.Pattern = "^" + trimmed + "(" + anyFoldPattern(target.Spellings()) + ")" + trimmed + "$"
		dt.Example = target.Allowed()[0]
		dt.Description = "one of the document types of a " + strings.ToLower(string(t)) + " (" +
			strings.Join(target.Allowed(), ", ") + "), in any case; the pattern lists the other spellings accepted"
		s.Properties["DocumentType"] = openapi3.NewSchemaRef("", &dt)
		s.Description = "an upload to a " + strings.ToLower(string(t))
		name := "DocumentUpload" + string(t)
		doc.Components.Schemas[name] = openapi3.NewSchemaRef("", &s)
		op.RequestBody.Value.Content["multipart/form-data"].Schema = openapi3.NewSchemaRef("#/components/schemas/"+name, &s)
	}
}

// anyFoldPattern matches exactly one of values, each letter in any of its
// simple case foldings (k, K and the Kelvin sign K alike), every other
// character literally.
func anyFoldPattern(values []string) string {
	alts := make([]string, len(values))
	for i, v := range values {
		var b strings.Builder
		for _, r := range v {
			fold := []rune{r}
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				fold = append(fold, f)
			}
			if len(fold) == 1 {
				b.WriteString(regexp.QuoteMeta(string(r)))
				continue
			}
			b.WriteString("[" + string(fold) + "]")
		}
		alts[i] = b.String()
	}
	return strings.Join(alts, "|")
}
