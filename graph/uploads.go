package graph

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
)

// UploadTransport is the GraphQL multipart request transport (document
// uploads) with the body bounded to one file of at most maxFileBytes plus
// the operations and map parts. Files go to temporary files (removed after
// the request), so memory stays bounded; the domain then
// streams the file into blob storage with the same rules as REST. A body over
// the bound answers 413 with extensions.code PAYLOAD_TOO_LARGE instead of
// gqlgen's 422. Add it to the server with srv.AddTransport(UploadTransport(max)).
func UploadTransport(maxFileBytes int64) graphql.Transport {
	return uploadTransport{maxBody: maxFileBytes + 1<<20, maxFile: maxFileBytes}
}

type uploadTransport struct{ maxBody, maxFile int64 }

func (t uploadTransport) Supports(r *http.Request) bool {
	return r.Method == http.MethodPost && r.Header.Get("Upgrade") == "" && isMultipart(r)
}

// Do reads the request with readMultipart (graph/multipart.go) and runs it.
func (t uploadTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	if r.ContentLength > t.maxBody {
		t.tooLarge(w)
		return
	}
	body := &limitWatch{ReadCloser: http.MaxBytesReader(w, r.Body, t.maxBody)}
	r.Body = body
	params, cleanup, err := readMultipart(r)
	defer cleanup()
	switch {
	case body.hit:
		t.tooLarge(w)
	case isBadMultipart(err):
		refuseUpload(w, r, err)
	case err != nil: // temporary files failed: the server's fault
		writeRefusal(w, r, http.StatusInternalServerError, coded(domain.CodeInternal, "the upload could not be buffered; try again"))
	default:
		execute(w, r, exec, params)
	}
}

func (t uploadTransport) tooLarge(w http.ResponseWriter) {
	msg := fmt.Sprintf("the upload exceeds the limit of %d bytes (%d MB) per file", t.maxFile, t.maxFile>>20)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Connection", "close")
	w.WriteHeader(http.StatusRequestEntityTooLarge)
	_ = json.NewEncoder(w).Encode(map[string]any{"errors": []any{map[string]any{
		"message": msg, "extensions": map[string]any{"code": string(domain.CodeTooLarge)},
	}}})
}

// limitWatch remembers that the body passed its bound.
type limitWatch struct {
	io.ReadCloser
	hit bool
}

func (l *limitWatch) Read(p []byte) (int, error) {
	n, err := l.ReadCloser.Read(p)
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		l.hit = true
	}
	return n, err
}

// isMultipart reports a GraphQL multipart request (an upload), which
// UploadTransport bounds itself instead of the 1 MiB JSON body limit.
func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// enableDocuments turns on document uploads (the multipart transport); the
// documents fields' loaders come per response from loaderExtension.
func enableDocuments(srv *handler.Server, docs *documents.Service) {
	srv.AddTransport(UploadTransport(docs.MaxFileBytes()))
}
