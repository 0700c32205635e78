package rest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
)

// multipartOverhead is what a multipart body may carry beyond the file: the
// part headers, boundaries and the small text fields.
const multipartOverhead = 64 << 10

// maxFieldChars bounds the text fields (DocumentType, FileName), in
// characters as every length; the read stops at the bytes that many
// characters can take.
const maxFieldChars = 1024

// uploadRoutes are docs/api-contract.md §4.7's four upload routes, ordinary routes of the
// API: endpoint() applies the version, Accept and bearer-token rules.
func uploadRoutes(docs *documents.Service) []Route {
	var routes []Route
	for _, u := range []struct {
		param  string
		path   string
		target domain.DocumentParentType
	}{
		{"loadNumber", "/loads/{loadNumber}/document", domain.ParentLoad},
		{"tripId", "/trips/{tripId}/document", domain.ParentTrip},
		{"driverId", "/drivers/{driverId}/document", domain.ParentDriver},
		{"carrierId", "/carriers/{carrierId}/document", domain.ParentCarrier},
	} {
		routes = append(routes, Route{Method: http.MethodPost, Path: u.path, Handle: uploader{docs: docs, target: u.target, param: u.param}.handle})
	}
	return routes
}

type uploader struct {
	docs   *documents.Service
	target domain.DocumentParentType
	param  string // the path segment naming the parent
}

// handle streams one multipart upload into the document store.
func (h uploader) handle(w http.ResponseWriter, r *http.Request) error {
	up, err := h.docs.BeginUpload(r.Context(), h.target, r.PathValue(h.param))
	if err != nil {
		return renameFields(err, map[string]string{"id": h.param})
	}
	// Whatever happens below, bytes of an upload that was not recorded go.
	defer up.Abort(context.WithoutCancel(r.Context()))

	limit := up.MaxBytes() + multipartOverhead
	if r.ContentLength > limit {
		w.Header().Set("Connection", "close")
		return documents.TooLarge(up.Target(), up.MaxBytes())
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		return &domain.Error{Code: domain.CodeUnsupportedType, Message: "the upload must be sent as multipart/form-data with the fields File, DocumentType and optionally FileName"}
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := readUploadParts(r, up); err != nil {
		return uploadError(err, up)
	}
	doc, err := up.Finish(r.Context())
	if err != nil {
		return err
	}
	WriteJSON(w, http.StatusOK, doc)
	return nil
}

// readUploadParts streams the parts into the upload, in whatever order they
// come. Field names match case-insensitively; a known field given twice in
// any spelling is refused (domain's rule); unknown fields are skipped.
func readUploadParts(r *http.Request, up *documents.Upload) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return malformedMultipart{err}
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return malformedMultipart{err}
		}
		switch name := part.FormName(); {
		case strings.EqualFold(name, "File"):
			err = up.WriteFile(r.Context(), part.FileName(), part)
		case strings.EqualFold(name, "DocumentType"):
			var v string
			if v, err = readField(part, name); err == nil {
				err = up.SetDocumentType(v)
			}
		case strings.EqualFold(name, "FileName"):
			var v string
			if v, err = readField(part, name); err == nil {
				err = up.SetFileName(v)
			}
		}
		_ = part.Close()
		if err != nil {
			return err
		}
	}
}

func readField(p *multipart.Part, name string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(p, utf8.UTFMax*maxFieldChars+1))
	if err != nil {
		return "", err
	}
	var v domain.Validation
	if len(b) > utf8.UTFMax*maxFieldChars {
		v.Add(name, fmt.Sprintf("%s must be at most %d characters", name, maxFieldChars))
	} else {
		v.CheckLength(name, string(b), maxFieldChars)
	}
	if err := v.Err(); err != nil {
		return "", err
	}
	return string(b), domain.InvalidText(name, string(b))
}

// malformedMultipart is a failure of the multipart framing itself (a part
// header that does not parse, a missing boundary): the client's fault.
type malformedMultipart struct{ err error }

func (m malformedMultipart) Error() string { return m.err.Error() }
func (m malformedMultipart) Unwrap() error { return m.err }

// uploadError turns transport failures into the client's error: a body over
// the limit is 413, a malformed or truncated multipart body 400.
func uploadError(err error, up *documents.Upload) error {
	var mbe *http.MaxBytesError
	var de *domain.Error
	var mm malformedMultipart
	switch {
	case errors.As(err, &de):
		return err
	case domain.CodeOf(err) == domain.CodeUnavailable: // the database broke, not the body
		return domain.ErrUnavailable
	case errors.As(err, &mbe):
		return documents.TooLarge(up.Target(), up.MaxBytes())
	case errors.As(err, &mm), errors.Is(err, io.ErrUnexpectedEOF), strings.HasPrefix(err.Error(), "multipart:"):
		return domain.Invalid("the multipart body is malformed or incomplete")
	}
	return err
}
