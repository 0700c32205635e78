package rest

import (
	"context"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
)

// multipartOverhead is what a multipart body may carry beyond the file: the
// part headers, boundaries and the small text fields.
const multipartOverhead = 64 << 10

// maxFieldBytes bounds the text fields (DocumentType, FileName).
const maxFieldBytes = 1024

// MountUploads registers spec 4.7's four upload routes, wrapped in auth
// (the bearer-token middleware), and the signed document download, which
// needs no token: its signature is the credential.
func MountUploads(mux *http.ServeMux, docs *domain.Documents, auth func(http.Handler) http.Handler) {
	for path, t := range map[string]domain.DocumentParentType{
		"loads/{id}/document":    domain.ParentLoad,
		"trips/{id}/document":    domain.ParentTrip,
		"drivers/{id}/document":  domain.ParentDriver,
		"carriers/{id}/document": domain.ParentCarrier,
	} {
		mux.Handle("POST /api/p/{version}/"+path, auth(uploadHandler{docs: docs, target: t}))
	}
	mux.Handle("GET /api/p/documents/{id}/content", downloadHandler{docs: docs})
}

type uploadHandler struct {
	docs   *domain.Documents
	target domain.DocumentParentType
}

func (h uploadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	SetRoute(r.Context(), r.Pattern)
	if _, ok := parseVersion(r.PathValue("version")); !ok {
		WriteProblem(w, r, http.StatusNotFound, "unsupported API version "+quote(r.PathValue("version"))+": use v1, v1.0, v2 or v2.0", nil)
		return
	}
	if !acceptsJSON(r.Header.Get("Accept")) {
		WriteProblem(w, r, http.StatusNotAcceptable, "this endpoint answers application/json or application/problem+json only", nil)
		return
	}
	up, err := h.docs.BeginUpload(r.Context(), h.target, r.PathValue("id"))
	if err != nil {
		WriteError(w, r, err)
		return
	}
	// Whatever happens below, bytes of an upload that was not recorded go.
	defer up.Abort(context.WithoutCancel(r.Context()))

	limit := up.MaxBytes() + multipartOverhead
	if r.ContentLength > limit {
		w.Header().Set("Connection", "close")
		WriteError(w, r, domain.DocumentTooLarge(up.Target(), up.MaxBytes()))
		return
	}
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || mt != "multipart/form-data" {
		WriteProblem(w, r, http.StatusUnsupportedMediaType, "the upload must be sent as multipart/form-data with the fields File, DocumentType and optionally FileName", nil)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, limit)
	if err := readUploadParts(r, up); err != nil {
		WriteError(w, r, uploadError(err, up))
		return
	}
	doc, err := up.Finish(r.Context())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	WriteJSON(w, http.StatusOK, doc)
}

// readUploadParts streams the parts into the upload, in whatever order they
// come. Field names match case-insensitively; unknown fields are skipped.
func readUploadParts(r *http.Request, up *domain.Upload) error {
	mr, err := r.MultipartReader()
	if err != nil {
		return err
	}
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
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
				up.SetFileName(v)
			}
		}
		_ = part.Close()
		if err != nil {
			return err
		}
	}
}

func readField(p *multipart.Part, name string) (string, error) {
	b, err := io.ReadAll(io.LimitReader(p, maxFieldBytes+1))
	if err != nil {
		return "", err
	}
	if len(b) > maxFieldBytes {
		var v domain.Validation
		v.Add(name, name+" is longer than 1024 bytes")
		return "", v.Err()
	}
	return string(b), nil
}

// uploadError turns transport failures into the client's error: a body over
// the limit is 413, a malformed or truncated multipart body 400.
func uploadError(err error, up *domain.Upload) error {
	var mbe *http.MaxBytesError
	var de *domain.Error
	switch {
	case errors.As(err, &de):
		return err
	case errors.As(err, &mbe):
		return domain.DocumentTooLarge(up.Target(), up.MaxBytes())
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, http.ErrNotMultipart), errors.Is(err, http.ErrMissingBoundary),
		strings.HasPrefix(err.Error(), "multipart:"):
		return domain.Invalid("the multipart body is malformed or incomplete")
	}
	return err
}
