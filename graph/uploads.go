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
	"github.com/99designs/gqlgen/graphql/handler/transport"

	"github.com/haulgraph/haulgraph/domain"
)

// UploadTransport is the GraphQL multipart request transport (document
// uploads) with the body bounded to one file of at most maxFileBytes plus
// the operations and map parts. gqlgen spills files above 1 MB to a temporary
// file (removed after the request), so memory stays bounded; the domain then
// streams the file into blob storage with the same rules as REST. A body over
// the bound answers 413 with extensions.code PAYLOAD_TOO_LARGE instead of
// gqlgen's 422. Add it to the server with srv.AddTransport(UploadTransport(max)).
func UploadTransport(maxFileBytes int64) graphql.Transport {
	return uploadTransport{transport.MultipartForm{MaxUploadSize: maxFileBytes + 1<<20, MaxMemory: 1 << 20}, maxFileBytes}
}

type uploadTransport struct {
	transport.MultipartForm
	maxFile int64
}

func (t uploadTransport) Do(w http.ResponseWriter, r *http.Request, exec graphql.GraphExecutor) {
	if r.ContentLength > t.MaxUploadSize {
		t.tooLarge(w)
		return
	}
	body := &limitWatch{ReadCloser: http.MaxBytesReader(w, r.Body, t.MaxUploadSize)}
	r.Body = body
	t.MultipartForm.Do(&tooLargeWriter{ResponseWriter: w, body: body, t: t}, r, exec)
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

// tooLargeWriter replaces gqlgen's answer with the 413 once the bound is hit.
type tooLargeWriter struct {
	http.ResponseWriter
	body     *limitWatch
	t        uploadTransport
	replaced bool
}

func (w *tooLargeWriter) WriteHeader(code int) {
	if w.body.hit {
		w.replaced = true
		w.t.tooLarge(w.ResponseWriter)
		return
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *tooLargeWriter) Write(p []byte) (int, error) {
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

// isMultipart reports a GraphQL multipart request (an upload), which
// UploadTransport bounds itself instead of the 1 MiB JSON body limit.
func isMultipart(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return err == nil && mt == "multipart/form-data"
}

// enableDocuments turns on document uploads (the multipart transport); the
// documents fields' loaders come per response from loaderExtension.
func enableDocuments(srv *handler.Server, docs *domain.Documents) {
	srv.AddTransport(UploadTransport(docs.MaxFileBytes()))
}
