package rest

import (
	"net/http"

	"github.com/haulgraph/haulgraph/ratelimit"
)

// maxClientIDKey bounds the client_id used as a bucket key; a longer one is
// no real client id and is limited by the caller's address instead.
const maxClientIDKey = 128

// TokenThrottle is the token endpoint's limit (auth.Config.Throttle): a
// bucket per client_id presented, or per remote address when none is, so
// that guessing one client's secret is slow. Same limiter and buckets
// store as the API; the caller answers the refusal in OAuth's format.
func (rl *RateLimits) TokenThrottle(l ratelimit.Limit) func(w http.ResponseWriter, r *http.Request, clientID string) bool {
	return func(w http.ResponseWriter, r *http.Request, clientID string) bool {
		key := "token:addr:" + RemoteHost(r)
		if clientID != "" && len(clientID) <= maxClientIDKey {
			key = "token:client:" + clientID
		}
		return rl.Admit(w, r, Check{Key: key, Limit: l})
	}
}
