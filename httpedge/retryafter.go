package httpedge

import (
	"net/http"
	"strconv"

	"github.com/haulgraph/haulgraph/domain"
)

// RetryAfter sets a refusal's Retry-After: the seconds until the caller may
// try again. Every transport sets it here (layering's TestRetryAfterOnlyAtTheEdge).
func RetryAfter(h http.Header, seconds int) {
	h.Set("Retry-After", strconv.Itoa(seconds))
}

// Unavailable readies the answer to domain.ErrUnavailable (the database or
// the limiter cannot be reached): it sets Retry-After to
// domain.UnavailableRetryAfter and returns 503, the status the transport
// answers with under its own body (problem+json, GraphQL, OAuth).
func Unavailable(h http.Header) int {
	RetryAfter(h, domain.UnavailableRetryAfter)
	return http.StatusServiceUnavailable
}
