package haulgraph

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"
)

// Error is every refusal by the API: a REST problem document (RFC 9457), a
// GraphQL error (errors[] in a 200 answer, or a subscription's error), or
// the token endpoint's error (RFC 6749).
type Error struct {
	// StatusCode is the HTTP status (200 for a GraphQL error in a 200
	// answer; 0 for a subscription's error message).
	StatusCode int
	// The problem document's fields.
	Type, Title, Detail, Instance string
	// Code is GraphQL's extensions.code (BAD_USER_INPUT, RATE_LIMITED,
	// CURSOR_EXPIRED, ...), a problem's code, or the token endpoint's error.
	Code string
	// Fields names the offending fields (JSON paths) with their messages.
	Fields map[string][]string
	// Path is a GraphQL error's path.
	Path []any
	// RequestID identifies the request in the server's logs and traces
	// (the problem's traceId, or the traceparent answer header's trace id).
	RequestID string
	// RetryAfter is the answer's Retry-After (zero when absent).
	RetryAfter time.Duration
	// Response is the answer's metadata (nil for a subscription's error).
	Response *Response
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
	if len(e.Fields) > 0 {
		fields := make([]string, 0, len(e.Fields))
		for f, msgs := range e.Fields {
			fields = append(fields, f+": "+strings.Join(msgs, "; "))
		}
		sort.Strings(fields)
		b.WriteString(" [" + strings.Join(fields, ", ") + "]")
	}
	if e.RequestID != "" {
		b.WriteString(" (request " + e.RequestID + ")")
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
func readError(res *http.Response, now time.Time) *Error {
	defer res.Body.Close()
	e := &Error{StatusCode: res.StatusCode, RetryAfter: parseRetryAfter(res.Header.Get("Retry-After"), now),
		RequestID: requestID(res.Header)}
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
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
		e.Type, e.Title, e.Detail, e.Instance, e.Code = p.Type, p.Title, p.Detail, p.Instance, p.Code
		if p.TraceID != "" {
			e.RequestID = p.TraceID
		}
		var gql []gqlError
		if json.Unmarshal(p.Errors, &e.Fields) != nil && json.Unmarshal(p.Errors, &gql) == nil && len(gql) > 0 {
			e.Fields = nil
			gql[0].fill(e)
		}
		if p.OAuthError != "" {
			e.Code, e.Detail = p.OAuthError, p.OAuthDescription
		}
	}
	if e.Title == "" {
		e.Title = http.StatusText(res.StatusCode)
	}
	return e
}

// gqlError is one entry of a GraphQL answer's errors.
type gqlError struct {
	Message    string `json:"message"`
	Path       []any  `json:"path"`
	Extensions struct {
		Code   string              `json:"code"`
		Fields map[string][]string `json:"fields"`
	} `json:"extensions"`
}

func (g gqlError) fill(e *Error) {
	e.Detail, e.Code, e.Path = g.Message, g.Extensions.Code, g.Path
	if len(g.Extensions.Fields) > 0 {
		e.Fields = g.Extensions.Fields
	}
}
