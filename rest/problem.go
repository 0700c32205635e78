// Package rest is the REST compatibility layer under /api/p/v{version} and the
// HTTP face of the token endpoint. Handlers only convert and call domain
// services; every error leaves through WriteError.
package rest

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/eventlog"
	"github.com/haulgraph/haulgraph/httpedge"
)

// ProblemType is the media type of every error body (RFC 9457).
const ProblemType = "application/problem+json"

// Problem is an RFC 9457 problem document with docs/architecture.md's extensions.
type Problem struct {
	Type     string              `json:"type"`
	Title    string              `json:"title"`
	Status   int                 `json:"status"`
	Detail   string              `json:"detail,omitempty"`
	Instance string              `json:"instance,omitempty"`
	TraceID  string              `json:"traceId,omitempty"`
	Errors   map[string][]string `json:"errors,omitempty"`
}

// StatusOf maps a domain error code to its HTTP status: the one place.
func StatusOf(code domain.Code) int {
	switch code {
	case domain.CodeInvalid:
		return http.StatusBadRequest
	case domain.CodeUnprocessable:
		return http.StatusUnprocessableEntity
	case domain.CodeUnauthenticated:
		return http.StatusUnauthorized
	case domain.CodeForbidden:
		return http.StatusForbidden
	case domain.CodeNotFound:
		return http.StatusNotFound
	case domain.CodeConflict:
		return http.StatusConflict
	case domain.CodeTooLarge:
		return http.StatusRequestEntityTooLarge
	case domain.CodeUnsupportedType:
		return http.StatusUnsupportedMediaType
	case domain.CodeRateLimited:
		return http.StatusTooManyRequests
	case eventlog.CodeCursorExpired:
		return http.StatusGone
	case domain.CodeUnavailable:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// WriteError answers err as problem+json. Domain errors keep their message;
// anything else is logged and answered as a bare 500, so no SQL, stack or
// internal detail ever reaches a client.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	var de *domain.Error
	if !errors.As(domain.Classify(err), &de) {
		slog.ErrorContext(r.Context(), "internal error", "err", err, "path", r.URL.Path, "trace_id", domain.TraceIDFrom(r.Context()))
		WriteProblem(w, r, http.StatusInternalServerError, "An internal error occurred; quote the traceId when reporting it.", nil)
		return
	}
	status := StatusOf(de.Code)
	httpedge.Challenge(r.Context(), w.Header(), de)
	if de.Code == domain.CodeUnavailable {
		httpedge.Unavailable(w.Header()) // Retry-After; status is already 503
	}
	fields := de.Fields
	if de.Code == domain.CodeForbidden || de.Code == domain.CodeUnauthenticated {
		fields = nil // the scope is in the header and the detail
	}
	WriteProblem(w, r, status, de.Message, fields)
}

// WriteProblem writes a problem document for status.
func WriteProblem(w http.ResponseWriter, r *http.Request, status int, detail string, fields map[string][]string) {
	p := Problem{
		Type:     "about:blank",
		Title:    http.StatusText(status),
		Status:   status,
		Detail:   detail,
		Instance: r.URL.Path,
		TraceID:  domain.TraceIDFrom(r.Context()),
		Errors:   fields,
	}
	if status == http.StatusBadRequest && fields != nil {
		p.Title = "One or more validation errors occurred."
	}
	w.Header().Set("Content-Type", ProblemType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(p)
}

// WriteJSON answers a success body as application/json.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	jsonHeader(w, status)
	_ = json.NewEncoder(w).Encode(v)
}

// jsonHeader starts a JSON answer.
func jsonHeader(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
}
