package rest

import (
	"mime"
	"strconv"
	"strings"
)

// jsonBodyTypes are the request media types docs/api-contract.md §4 lists for JSON bodies.
var jsonBodyTypes = map[string]bool{"application/json": true, "application/json-patch+json": true}

// acceptsJSON reports whether an Accept header admits application/json or
// application/problem+json (docs/api-contract.md §4: the two media types on offer) or one of
// extra (a route's own media types). An absent header accepts anything.
func acceptsJSON(header string, extra ...string) bool {
	if strings.TrimSpace(header) == "" {
		return true
	}
	for _, part := range strings.Split(header, ",") {
		mt, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		if q, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(q, 64); err == nil && f <= 0 {
				continue // q=0: explicitly not acceptable
			}
		}
		switch mt {
		case "*/*", "application/*", "application/json", ProblemType:
			return true
		}
		for _, x := range extra {
			if mt == x || mt == x[:strings.IndexByte(x, '/')+1]+"*" {
				return true
			}
		}
	}
	return false
}

// isJSONBody reports whether a Content-Type names a JSON body type.
func isJSONBody(header string) bool {
	mt, _, err := mime.ParseMediaType(header)
	return err == nil && jsonBodyTypes[mt]
}
