package rest_test

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// The four document uploads answer as the OpenAPI document describes them,
// on success and on refusal.
func TestOpenAPIUploadsMatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t, apptest.Options{})
	tok := f.srv.Token(t, f.tenant, domain.ScopeLoadUpdate, domain.ScopeTripUpdate, domain.ScopeDriverUpdate, domain.ScopeCarrierUpdate)
	pdf := []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	for _, c := range []struct {
		path, docType string
		file          []byte
		status        int
	}{
		{"/api/p/v2.0/loads/" + f.seed.LoadWithTrips + "/document", "Bill of Lading", pdf, 200},
		{"/api/p/v1/trips/" + f.seed.TripID.String() + "/document", "Bill of Lading (BOL)", pdf, 200},
		{"/api/p/v1/drivers/" + f.seed.DriverID.String() + "/document", "License", pdf, 200},
		{"/api/p/v1/carriers/" + f.seed.CarrierID.String() + "/document", "Carrier Agreement", pdf, 200},
		{"/api/p/v2.0/loads/" + f.seed.LoadWithoutTrips + "/document", "Bill of Lading", pdf, 404},
		{"/api/p/v1/trips/" + f.seed.TripID.String() + "/document", "Carrier Invoice", pdf, 400},
		{"/api/p/v1/drivers/" + f.seed.DriverID.String() + "/document", "License", []byte("just text, not a document"), 415},
	} {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("File", "scan.pdf")
		_, _ = fw.Write(c.file)
		_ = mw.WriteField("DocumentType", c.docType)
		_ = mw.Close()
		h := map[string]string{"Authorization": "Bearer " + tok, "Content-Type": mw.FormDataContentType()}
		res, body := testkit.Request(t, "POST", f.srv.URL+c.path, h, buf.String())
		if res.StatusCode != c.status {
			t.Fatalf("%s (%s): %d %s, want %d", c.path, c.docType, res.StatusCode, body, c.status)
		}
		if res.Header.Get("RateLimit-Limit") == "" {
			t.Fatalf("%s: upload answered without the rate-limit headers", c.path)
		}
		if c.status != http.StatusOK {
			wantProblem(t, res, body, c.status)
		}
		f.oas.check(t, "POST", f.srv.URL+c.path, mw.FormDataContentType(), buf.String(), res, body)
	}
}
