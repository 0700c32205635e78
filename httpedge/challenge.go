package httpedge

import (
	"context"
	"net/http"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
)

// Challenge sets the WWW-Authenticate header RFC 6750 asks of a request
// refused for its bearer token, the same on every transport: an
// unauthenticated one gets invalid_token with the reason when it presented
// credentials and the bare realm when it presented none (§3.1: no
// credentials, no error code); a forbidden one naming the scope it lacks
// gets insufficient_scope. Other errors set nothing.
func Challenge(ctx context.Context, h http.Header, de *domain.Error) {
	switch de.Code {
	case domain.CodeUnauthenticated:
		if domain.CredentialsPresented(ctx) {
			h.Set("WWW-Authenticate", `Bearer error="invalid_token", error_description="`+quoteSafe(de.Message)+`"`)
		} else {
			h.Set("WWW-Authenticate", `Bearer realm="haulgraph"`)
		}
	case domain.CodeForbidden:
		if s := de.Fields["scope"]; len(s) > 0 {
			h.Set("WWW-Authenticate", `Bearer error="insufficient_scope", scope="`+quoteSafe(strings.Join(s, " "))+`"`)
		}
	}
}

// quoteSafe makes s fit a quoted-string of a header: no quote or backslash
// to end it early, no CR or LF to split the header.
var quoteSafe = strings.NewReplacer(`"`, `'`, `\`, `/`, "\r", " ", "\n", " ").Replace
