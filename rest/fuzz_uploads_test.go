package rest

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/seed"
	"github.com/haulgraph/haulgraph/storage/seedtest"
)

// FuzzReadUploadParts: the REST upload route, over the real document
// service (PostgreSQL rows, file blobs), answers any multipart body either
// with a recorded document or with the client's error (4xx): never an
// internal one, never a panic.
func FuzzReadUploadParts(f *testing.F) {
	url, res := seedtest.URL(f, seed.Options{Tenant: "acme", Scale: 1})
	db := dbtest.Open(f, url)
	blobs, err := storage.OpenBlobs(context.Background(), "file://"+f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = blobs.Close() })
	docs := &documents.Service{Store: &storage.Documents{DB: db}, Blobs: blobs, Links: documents.NewLinkSigner(make([]byte, 32), "http://127.0.0.1")}
	ctx := domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: res.TenantID, Scopes: []domain.Scope{"driver:update"}})
	up := uploader{docs: docs, target: domain.ParentDriver, param: "driverId"}

	part := func(name, filename, body string) string {
		h := `Content-Disposition: form-data; name="` + name + `"`
		if filename != "" {
			h += `; filename="` + filename + `"`
		}
		return "--B\r\n" + h + "\r\n\r\n" + body + "\r\n"
	}
	for _, s := range []string{
		part("DocumentType", "", "License") + part("File", "a.pdf", "%PDF-1.4") + "--B--\r\n",
		part("File", "a.pdf", "%PDF-1.4") + part("documenttype", "", "Other") + part("FileName", "", "x\u202e.pdf") + "--B--\r\n",
		part("File", "a.pdf", "x") + part("File", "b.pdf", "y") + "--B--\r\n",
		part("DocumentType", "", "\x00") + "--B--\r\n",
		"--B\r\nContent-Disposition form-data\r\n\r\nx\r\n--B--\r\n",
		"--B\r\n\r\n",
		"",
	} {
		f.Add([]byte(s))
	}
	send := func(body []byte) *httptest.ResponseRecorder {
		r := httptest.NewRequestWithContext(ctx, http.MethodPost, "/api/p/v1/drivers/x/document", bytes.NewReader(body))
		r.Header.Set("Content-Type", "multipart/form-data; boundary=B")
		r.SetPathValue("driverId", res.DriverID.String())
		w := httptest.NewRecorder()
		if err := up.handle(w, r); err != nil {
			WriteError(w, r, err)
		}
		return w
	}
	// The harness reaches the real service: a well-formed upload is stored.
	if w := send([]byte(part("DocumentType", "", "License") + part("File", "a.pdf", "%PDF-1.4") + "--B--\r\n")); w.Code != http.StatusOK {
		f.Fatalf("a well-formed upload: %d %s", w.Code, w.Body.Bytes())
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if w := send(body); w.Code >= 500 {
			t.Fatalf("%q: %d %s", body, w.Code, w.Body.Bytes())
		}
	})
}
