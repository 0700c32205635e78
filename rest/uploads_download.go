package rest

import (
	"io"
	"mime"
	"net/http"
	"strconv"

	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/httpedge"
)

// DownloadPattern is the route of a document's bytes: outside the
// versioned API, since its signed link, not a bearer token, is the credential.
const DownloadPattern = "GET " + Prefix + "documents/{id}/content"

// DocumentDownload serves a document's bytes to the holder of a signed,
// unexpired link (GraphQL's Document.downloadUrl); no bearer token is needed.
func DocumentDownload(docs *documents.Service) http.Handler { return downloadHandler{docs: docs} }

type downloadHandler struct{ docs *documents.Service }

func (h downloadHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	httpedge.SetRoute(r.Context(), r.Pattern)
	if err := checkQuery(r.URL.RawQuery, nil); err != nil {
		WriteError(w, r, err)
		return
	}
	doc, rc, err := h.docs.OpenSigned(r.Context(), r.PathValue("id"), r.URL.Query())
	if err != nil {
		WriteError(w, r, err)
		return
	}
	defer rc.Close()
	hd := w.Header()
	hd.Set("Content-Type", doc.ContentType)
	hd.Set("Content-Length", strconv.FormatInt(doc.AttachmentSize, 10))
	hd.Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": documents.DownloadName(doc.AttachmentPath, doc.ContentType)}))
	hd.Set("X-Content-Type-Options", "nosniff")
	// Opened in a browser anyway (a PDF viewer, an image), the document is
	// in a sandbox of its own: no scripts, no requests, not this origin.
	hd.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	hd.Set("Cache-Control", "private, no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = io.Copy(w, rc)
}
