package rest

import "strings"

// supportedVersions are docs/rest.md's accepted path versions (the segment after
// its "v"); the API contract (docs/api-contract.md §9) shows 1, 1.0 and 2.0.
var supportedVersions = map[string]bool{"1": true, "1.0": true, "2": true, "2.0": true}

// parseVersion reads a path segment such as "v1" or "v2.0".
func parseVersion(segment string) (string, bool) {
	v, ok := strings.CutPrefix(segment, "v")
	if !ok || !supportedVersions[v] {
		return "", false
	}
	return v, true
}
