package documents

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
)

// Target is one of docs/api-contract.md §4.7's four upload targets: what it accepts and
// which operation (and so which scope) it is.
type Target struct {
	Parent domain.DocumentParentType
	Op     domain.Operation
	// types are the allowed DocumentType values; the first spelling of each
	// is the canonical one, the others are accepted alternatives.
	types [][]string
	// refused are values docs/api-contract.md §4.7 names as refused, with the reason told to
	// the caller.
	refused map[string]string
}

// DefaultMaxBytes is docs/security.md's upload size limit (25 MB, the per-field figure
// of docs/api-contract.md §8; the 10 MB summary lines lose).
const DefaultMaxBytes int64 = 25 << 20

// MaxPerParent bounds the documents of one load, trip, driver or carrier:
// an upload past it is refused (409, nothing stored), every document of a
// parent is listed, and the query cost prices a documents field by it.
const MaxPerParent = 50

// Targets is docs/api-contract.md §4.7's allowed DocumentType table. Values match
// case-insensitively; alternative spellings follow the canonical one.
var Targets = map[domain.DocumentParentType]*Target{
	domain.ParentLoad: {
		Parent: domain.ParentLoad, Op: OpUploadLoadDoc,
		types: [][]string{
			{"Customer Rate and Load Confirmation"},
			{"Customer Load Confirmation"},
			{"Customer Rate Confirmation"},
			{"Signed Customer Rate Confirmation"},
			{"Proof of Delivery"},
			{"Proof of Pickup"},
			{"Bill of Lading"},
			{"Shipping Labels"},
		},
	},
	domain.ParentTrip: {
		Parent: domain.ParentTrip, Op: OpUploadTripDoc,
		// The parenthesised abbreviations name the same document: the long
		// name alone and the abbreviation alone are accepted too.
		types: [][]string{
			{"Proof of Delivery (POD)", "Proof of Delivery", "POD"},
			{"Bill of Lading (BOL)", "Bill of Lading", "BOL"},
			{"Carrier Rate Confirmation"},
			{"Load Manifest"},
			{"Trip Report"},
			{"Temp. Log", "Temp Log"},
			{"Proof of Pickup"},
			{"Scale Ticket"},
			{"Notice of Assignment (NOA)", "Notice of Assignment", "NOA"},
			{"Shipping Labels"},
		},
		refused: map[string]string{
			"carrier invoice": "'Carrier Invoice' is refused on trips: a carrier's invoice is a billing document and is not accepted through the trip document upload",
			"trip manifest":   "'Trip Manifest' is refused on trips: the manifest of a trip is uploaded as 'Load Manifest'",
		},
	},
	domain.ParentDriver: {
		Parent: domain.ParentDriver, Op: OpUploadDriverDoc,
		types: [][]string{
			{"License"},
			{"Driver License", "DriverLicense"},
			{"Driver Sheet", "DriverSheet"},
			{"Drug Test"},
			{"Medical", "Medical Card"},
			{"Operating Authority"},
			{"Completed W9 Tax Form", "W9 Form"},
			{"Other Documents"},
		},
	},
	domain.ParentCarrier: {
		Parent: domain.ParentCarrier, Op: OpUploadCarrierDoc,
		types: [][]string{
			{"Carrier Agreement"},
			{"Carrier Application"},
			{"Carrier Authority"},
			{"Carrier Onboarding"},
			{"Other Documents"},
		},
	},
}

// Allowed lists the canonical DocumentType values of the target.
func (t *Target) Allowed() []string {
	out := make([]string, len(t.types))
	for i, spellings := range t.types {
		out[i] = spellings[0]
	}
	return out
}

// Spellings are every spelling CheckDocumentType accepts (in any case),
// canonical ones first in each group.
func (t *Target) Spellings() []string {
	var out []string
	for _, spellings := range t.types {
		out = append(out, spellings...)
	}
	return out
}

// CheckDocumentType validates a DocumentType for the target and returns it
// as the caller sent it (trimmed): docs/api-contract.md §2.7 says AttachmentType equals the
// DocumentType sent, so the caller's spelling is kept.
func (t *Target) CheckDocumentType(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", domain.FieldError("DocumentType", "DocumentType is required (length at least 1)")
	}
	if why, ok := t.refused[strings.ToLower(v)]; ok {
		return "", domain.FieldError("DocumentType", why)
	}
	for _, spellings := range t.types {
		for _, s := range spellings {
			if strings.EqualFold(s, v) {
				return v, nil
			}
		}
	}
	return "", domain.FieldError("DocumentType", fmt.Sprintf("'%s' is not a document type of a %s; allowed: %s",
		v, strings.ToLower(string(t.Parent)), strings.Join(t.Allowed(), ", ")))
}

// SniffLen is how many leading bytes Sniff needs at most.
const SniffLen = 512

// Sniff judges a file by its first bytes (docs/architecture.md: the declared type
// does not count) and returns its media type, or "" when it is none of PDF,
// JPEG, PNG or GIF.
func Sniff(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return "application/pdf"
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return "image/jpeg"
	case bytes.HasPrefix(head, []byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}):
		return "image/png"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "image/gif"
	}
	return ""
}
