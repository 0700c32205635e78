package rest_test

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/secretbox"
	"github.com/haulgraph/haulgraph/testkit"
)

// The uploads are ordinary API routes: the rules every route shares apply
// to them from the one place (a path that exists for POST answers GET with
// 405 and Allow, not 404; the version and Accept checks), and the signed
// download is in the OpenAPI document, on success and on refusal.
func TestUploadsAreAPIRoutes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	tok := f.srv.Token(t, f.tenant, domain.ScopeDriverUpdate)
	path := "/api/p/v1/drivers/" + f.seed.DriverID.String() + "/document"

	before := f.documentCount(t)
	res, body := testkit.Request(t, "GET", f.srv.URL+path, map[string]string{"Authorization": "Bearer " + tok}, "")
	wantProblem(t, res, body, http.StatusMethodNotAllowed)
	if res.Header.Get("Allow") != "POST" {
		t.Fatalf("Allow %q, want POST", res.Header.Get("Allow"))
	}

	pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	upload := func(path string, header map[string]string) (*http.Response, []byte) {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("File", "license.pdf")
		_, _ = fw.Write(pdf)
		_ = mw.WriteField("DocumentType", "License")
		_ = mw.Close()
		h := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": mw.FormDataContentType()}
		for k, v := range header {
			h[k] = v
		}
		res, body := testkit.Request(t, "POST", f.srv.URL+path, h, buf.String())
		f.oas.check(t, "POST", f.srv.URL+path, mw.FormDataContentType(), buf.String(), res, body)
		return res, body
	}
	res, body = upload(strings.Replace(path, "/v1/", "/v3/", 1), nil)
	wantProblem(t, res, body, http.StatusNotFound)
	res, body = upload(path, map[string]string{"Accept": "text/html"})
	wantProblem(t, res, body, http.StatusNotAcceptable)
	res, body = upload(path, map[string]string{"Authorization": "Bearer not-a-token"})
	wantProblem(t, res, body, http.StatusUnauthorized)
	if f.documentCount(t) != before {
		t.Fatal("a refused upload left a document")
	}

	res, body = upload(path, nil)
	var doc struct {
		ID uuid.UUID `json:"id"`
	}
	if res.StatusCode != http.StatusOK || json.Unmarshal(body, &doc) != nil || doc.ID == uuid.Nil {
		t.Fatalf("upload: %d %s", res.StatusCode, body)
	}

	link := f.srv.Documents.DownloadURL(f.tenant.ID, domain.Document{ID: doc.ID})
	res, body = testkit.Request(t, "GET", link, nil, "")
	if res.StatusCode != http.StatusOK || !bytes.Equal(body, pdf) {
		t.Fatalf("download: %d, %d bytes", res.StatusCode, len(body))
	}
	f.oas.check(t, "GET", link, "", "", res, body)

	forged := strings.Replace(link, "sig=", "sig=0", 1)
	res, body = testkit.Request(t, "GET", forged, nil, "")
	wantProblem(t, res, body, http.StatusForbidden)
	f.oas.check(t, "GET", forged, "", "", res, body)

	// Links are signed with their own HKDF-derived key: a link signed with
	// the master key or with the sealing key is refused.
	master, err := secretbox.DecodeKey(f.srv.Config.EncryptionKey)
	if err != nil {
		t.Fatal(err)
	}
	base := link[:strings.Index(link, "/api/p/")]
	for name, key := range map[string][]byte{"master": master, "sealing": secretbox.Derive(master, secretbox.SealingLabel)} {
		other := &documents.Service{Links: documents.NewLinkSigner(key, base)}
		res, body = testkit.Request(t, "GET", other.DownloadURL(f.tenant.ID, domain.Document{ID: doc.ID}), nil, "")
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("a link signed with the %s key: %d, want 403", name, res.StatusCode)
		}
	}
}

func (f *fixture) documentCount(t *testing.T) int {
	t.Helper()
	var n int
	if err := f.srv.DB.Pool.QueryRow(t.Context(), "SELECT count(*) FROM documents").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
