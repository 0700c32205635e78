package rest

import (
	"net/http"
	"time"
)

// LegacyToken serves the older token flow at
// /api/authentication/{tenant_id}/token (docs/api-contract.md §5.4): issue (scope-less
// tokens) until cutoff, then 410 problem+json pointing to /oauth/token.
func LegacyToken(cutoff time.Time, issue http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if time.Now().Before(cutoff) {
			issue.ServeHTTP(w, r)
			return
		}
		WriteProblem(w, r, http.StatusGone, "The legacy token flow ended on "+cutoff.UTC().Add(-time.Nanosecond).Format(time.DateOnly)+
			"; obtain tokens with the OAuth 2.0 client-credentials flow at POST /oauth/token.", nil)
	})
}
