package haulgraph

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
)

// Error is a refusal by the API: a REST problem document (RFC 9457), a
// GraphQL error, a token endpoint error (RFC 6749) or a subscription error,
// with the fields each carries.
type Error struct {
	// StatusCode is the HTTP status (200 for a GraphQL error in a 200
	// answer; 0 for a subscription's error message).
	StatusCode int
	// Problem document fields.
	Type, Title, Detail, Instance string
	TraceID                       string
	// Errors names the offending fields (JSON paths) and their messages.
	Errors map[string][]string
	// Code is GraphQL's extensions.code (BAD_USER_INPUT, RATE_LIMITED,
	// CURSOR_EXPIRED, ...) or the token endpoint's error.
	Code string
	// Path is a GraphQL error's path.
	Path []any
	// RetryAfter is the answer's Retry-After (zero when absent).
	RetryAfter time.Duration
	// Header is the answer's header (RateLimit-*, WWW-Authenticate).
	Header http.Header
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("haulgraph: ")
	if e.StatusCode != 0 {
		fmt.Fprintf(&b, "%d ", e.StatusCode)
	}
	if e.Code != "" {
		b.WriteString(e.Code + " ")
	}
	switch {
	case e.Detail != "":
		b.WriteString(e.Detail)
	case e.Title != "":
		b.WriteString(e.Title)
	default:
		b.WriteString(http.StatusText(e.StatusCode))
	}
	if len(e.Errors) > 0 {
		fields := make([]string, 0, len(e.Errors))
		for f, msgs := range e.Errors {
			fields = append(fields, f+": "+strings.Join(msgs, "; "))
		}
		slices.Sort(fields)
		b.WriteString(" [" + strings.Join(fields, ", ") + "]")
	}
	if e.TraceID != "" {
		b.WriteString(" (trace " + e.TraceID + ")")
	}
	return strings.TrimSpace(b.String())
}

// IsRateLimited reports whether err is a 429 or a RATE_LIMITED refusal.
func IsRateLimited(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.StatusCode == http.StatusTooManyRequests || e.Code == "RATE_LIMITED")
}

// IsNotFound reports whether err is a 404 or a NOT_FOUND GraphQL error.
func IsNotFound(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.StatusCode == http.StatusNotFound || e.Code == "NOT_FOUND")
}

// maxErrorBody bounds what is read of an error answer.
const maxErrorBody = 1 << 20

// readError turns an answer of status >= 400 into an *Error and closes it.
func readError(res *http.Response) *Error {
	defer res.Body.Close()
	e := &Error{StatusCode: res.StatusCode, RetryAfter: parseRetryAfter(res.Header.Get("Retry-After")), Header: res.Header}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	ct := res.Header.Get("Content-Type")
	switch {
	case strings.HasPrefix(ct, "application/problem+json"), strings.HasPrefix(ct, "application/json"):
		var p struct {
			Type     string `json:"type"`
			Title    string `json:"title"`
			Detail   string `json:"detail"`
			Instance string `json:"instance"`
			TraceID  string `json:"traceId"`
			// A problem's field map, or GraphQL's error list.
			Errors json.RawMessage `json:"errors"`
			Code   string          `json:"code"`
			// The token endpoint's errors (RFC 6749 §5.2).
			OAuthError       string `json:"error"`
			OAuthDescription string `json:"error_description"`
		}
		if json.Unmarshal(body, &p) == nil {
			e.Type, e.Title, e.Detail, e.Instance, e.TraceID, e.Code = p.Type, p.Title, p.Detail, p.Instance, p.TraceID, p.Code
			var gql []gqlError
			if json.Unmarshal(p.Errors, &e.Errors) != nil && json.Unmarshal(p.Errors, &gql) == nil && len(gql) > 0 {
				e.Errors = nil
				gql[0].fill(e)
			}
			if p.OAuthError != "" {
				e.Code, e.Detail = p.OAuthError, p.OAuthDescription
			}
		}
	}
	if e.Title == "" {
		e.Title = http.StatusText(res.StatusCode)
	}
	return e
}

// tokenError is the token endpoint's refusal as an *Error.
func tokenError(re *oauth2.RetrieveError) *Error {
	e := &Error{Code: re.ErrorCode, Detail: re.ErrorDescription, Title: "token request refused"}
	if re.Response != nil {
		e.StatusCode = re.Response.StatusCode
		e.Header = re.Response.Header
		e.RetryAfter = parseRetryAfter(re.Response.Header.Get("Retry-After"))
	}
	if e.Detail == "" {
		e.Detail = strings.TrimSpace(string(re.Body))
	}
	return e
}
