package rest_test

import (
	"bytes"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/rest"
)

func TestUploadEveryAllowedTypePerTarget(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	who := e.token(e.a, allUploadScopes)
	types := map[string]struct {
		path, parentID string
		values         []string
	}{
		"Load": {"/api/p/v2.0/loads/" + e.a.loadNumber + "/document", e.a.loadNumber, []string{
			"Customer Rate and Load Confirmation", "Customer Load Confirmation", "Customer Rate Confirmation",
			"Signed Customer Rate Confirmation", "Proof of Delivery", "Proof of Pickup", "Bill of Lading", "Shipping Labels",
			"proof of delivery"}},
		"Trip": {"/api/p/v1/trips/" + e.a.tripID.String() + "/document", e.a.tripID.String(), []string{
			"Proof of Delivery (POD)", "Bill of Lading (BOL)", "Carrier Rate Confirmation", "Load Manifest", "Trip Report",
			"Temp. Log", "Proof of Pickup", "Scale Ticket", "Notice of Assignment (NOA)", "Shipping Labels", "POD", "bol"}},
		"Driver": {"/api/p/v1.0/drivers/" + e.a.driverID.String() + "/document", e.a.driverID.String(), []string{
			"License", "Driver License", "DriverLicense", "Driver Sheet", "DriverSheet", "Drug Test", "Medical", "Medical Card",
			"Operating Authority", "Completed W9 Tax Form", "W9 Form", "Other Documents", "driverlicense"}},
		"Carrier": {"/api/p/v2/carriers/" + e.a.carrierID.String() + "/document", e.a.carrierID.String(), []string{
			"Carrier Agreement", "Carrier Application", "Carrier Authority", "Carrier Onboarding", "Other Documents", "CARRIER AGREEMENT"}},
	}
	files := [][]byte{pdfBytes, pngBytes, jpegBytes, gifBytes}
	exts := []string{".pdf", ".png", ".jpg", ".gif"} // the stored name follows the bytes, not "scan.pdf"
	uploads := 0
	for parentType, tc := range types {
		for i, v := range tc.values {
			body := files[i%len(files)]
			status, doc, hdr := e.post(tc.path, who, fieldP("DocumentType", v), fileP("scan.pdf", body))
			if status != 200 {
				t.Fatalf("%s %q: status %d %v", parentType, v, status, doc)
			}
			if !strings.HasPrefix(hdr.Get("Content-Type"), "application/json") {
				t.Errorf("%s: content type %q", parentType, hdr.Get("Content-Type"))
			}
			uploads++
			if doc["AttachmentType"] != v {
				t.Errorf("%s %q: AttachmentType %v, want the DocumentType as sent", parentType, v, doc["AttachmentType"])
			}
			if doc["ParentType"] != parentType || doc["ParentId"] != tc.parentID {
				t.Errorf("%s: parent %v %v", parentType, doc["ParentType"], doc["ParentId"])
			}
			if doc["AttachmentSize"] != float64(len(body)) {
				t.Errorf("%s: size %v, want %d", parentType, doc["AttachmentSize"], len(body))
			}
			want := "scan_" + strconv.FormatInt(e.clock.Now().UnixMilli(), 10) + exts[i%len(files)]
			if doc["AttachmentPath"] != want {
				t.Errorf("%s: AttachmentPath %v, want %s", parentType, doc["AttachmentPath"], want)
			}
			if doc["UploadedAt"] != "2026-03-01T12:00:00Z" {
				t.Errorf("%s: UploadedAt %v", parentType, doc["UploadedAt"])
			}
			if id, _ := doc["id"].(string); len(id) != 36 {
				t.Errorf("%s: id %v", parentType, doc["id"])
			}
		}
	}
	if n := e.documentRows(); n != uploads {
		t.Errorf("documents rows: %d, want %d", n, uploads)
	}
	if n := e.blobCount(); n != uploads {
		t.Errorf("stored blobs: %d, want %d", n, uploads)
	}
}

func TestUploadRejections(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	who := e.token(e.a, allUploadScopes)
	load := "/api/p/v1/loads/" + e.a.loadNumber + "/document"
	trip := "/api/p/v1/trips/" + e.a.tripID.String() + "/document"
	pdf := fileP("a.pdf", pdfBytes)
	docType := fieldP("DocumentType", "Bill of Lading")
	cases := []struct {
		name      string
		path, who string
		parts     []part
		status    int
		detail    string // a substring of detail or of the field errors
	}{
		{"no file", load, who, []part{docType}, 400, "File is required"},
		{"two files", load, who, []part{docType, pdf, fileP("b.pdf", pdfBytes)}, 400, "exactly one file"},
		{"empty file", load, who, []part{docType, fileP("a.pdf", nil)}, 400, "the file is empty"},
		{"missing DocumentType", load, who, []part{pdf}, 400, "DocumentType is required"},
		{"empty DocumentType", load, who, []part{fieldP("DocumentType", " "), pdf}, 400, "DocumentType is required"},
		{"unknown DocumentType", load, who, []part{fieldP("DocumentType", "Selfie"), pdf}, 400, "'Selfie' is not a document type of a load"},
		{"trip type on a load", load, who, []part{fieldP("DocumentType", "Scale Ticket"), pdf}, 400, "allowed: Customer Rate and Load Confirmation"},
		{"Carrier Invoice on a trip", trip, who, []part{fieldP("DocumentType", "Carrier Invoice"), pdf}, 400, "carrier's invoice is a billing document"},
		{"Trip Manifest on a trip", trip, who, []part{fieldP("DocumentType", "trip manifest"), pdf}, 400, "uploaded as 'Load Manifest'"},
		{"DocumentType after a refused file type", load, who, []part{fileP("a.pdf", []byte("just text\n")), docType}, 415, "not a PDF, JPEG, PNG or GIF"},
		{"text renamed .pdf", load, who, []part{docType, part{name: "File", filename: "invoice.pdf", contentType: "application/pdf", body: []byte("hello, I am text\n")}}, 415, "judged by its content"},
		{"html declared as png", load, who, []part{docType, part{name: "File", filename: "x.png", contentType: "image/png", body: []byte("<html><script>alert(1)</script>")}}, 415, "not a PDF"},
		{"unknown load", "/api/p/v1/loads/NOPE/document", who, []part{docType, pdf}, 404, `load "NOPE" was not found`},
		{"load without trips", "/api/p/v1/loads/" + e.a.emptyLoad + "/document", who, []part{docType, pdf}, 404, "was not found, or it has no trips"},
		{"unknown trip", "/api/p/v1/trips/9b2f8f5e-0000-4000-8000-000000000000/document", who, []part{fieldP("DocumentType", "POD"), pdf}, 404, "trip"},
		{"malformed trip id", "/api/p/v1/trips/not-a-uuid/document", who, []part{fieldP("DocumentType", "POD"), pdf}, 400, `tripId`},
		{"unknown driver", "/api/p/v1/drivers/9b2f8f5e-0000-4000-8000-000000000000/document", who, []part{fieldP("DocumentType", "License"), pdf}, 404, "driver"},
		{"unknown carrier", "/api/p/v1/carriers/9b2f8f5e-0000-4000-8000-000000000000/document", who, []part{fieldP("DocumentType", "Carrier Agreement"), pdf}, 404, "carrier"},
		{"another tenant's load", "/api/p/v1/loads/" + e.b.loadNumber + "/document", who, []part{docType, pdf}, 404, `load "` + e.b.loadNumber + `" was not found, or it has no trips`},
		{"another tenant's trip", "/api/p/v1/trips/" + e.b.tripID.String() + "/document", who, []part{fieldP("DocumentType", "POD"), pdf}, 404, `trip "` + e.b.tripID.String() + `" was not found`},
		{"another tenant's driver", "/api/p/v1/drivers/" + e.b.driverID.String() + "/document", who, []part{fieldP("DocumentType", "License"), pdf}, 404, `driver "` + e.b.driverID.String() + `" was not found`},
		{"another tenant's carrier", "/api/p/v1/carriers/" + e.b.carrierID.String() + "/document", who, []part{fieldP("DocumentType", "Carrier Agreement"), pdf}, 404, `carrier "` + e.b.carrierID.String() + `" was not found`},
		{"no token", load, "", []part{docType, pdf}, 401, "bearer token"},
		{"wrong scope", load, e.token(e.a, "load:read trip:update"), []part{docType, pdf}, 403, "load:update"},
		{"driver scope on a carrier", "/api/p/v1/carriers/" + e.a.carrierID.String() + "/document", e.token(e.a, "driver:update"), []part{fieldP("DocumentType", "Carrier Agreement"), pdf}, 403, "carrier:update"},
		{"unsupported version", "/api/p/v3/loads/" + e.a.loadNumber + "/document", who, []part{docType, pdf}, 404, "unsupported API version"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body, hdr := e.post(c.path, c.who, c.parts...)
			if status != c.status {
				t.Fatalf("status %d, want %d: %v", status, c.status, body)
			}
			if hdr.Get("Content-Type") != rest.ProblemType {
				t.Errorf("content type %q, want problem+json", hdr.Get("Content-Type"))
			}
			if body["status"] != float64(c.status) {
				t.Errorf("problem status %v", body["status"])
			}
			text := problemText(body)
			if !strings.Contains(text, c.detail) {
				t.Errorf("problem %q does not say %q", text, c.detail)
			}
		})
	}
	// Nothing of the refused uploads is stored, neither row nor bytes.
	if n := e.documentRows(); n != 0 {
		t.Errorf("documents rows after rejections: %d", n)
	}
	if n := e.blobCount(); n != 0 {
		t.Errorf("blobs after rejections: %d", n)
	}
}

// problemText joins a problem's detail and field messages.
func problemText(p map[string]any) string {
	s, _ := p["detail"].(string)
	if errs, ok := p["errors"].(map[string]any); ok {
		for k, v := range errs {
			for _, m := range v.([]any) {
				s += " | " + k + ": " + m.(string)
			}
		}
	}
	return s
}

func TestUploadNotMultipart(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	status, body, _ := e.do("/api/p/v1/loads/"+e.a.loadNumber+"/document", e.token(e.a, allUploadScopes),
		"application/json", strings.NewReader(`{"File":"x"}`))
	if status != 415 || !strings.Contains(problemText(body), "multipart/form-data") {
		t.Fatalf("status %d %v", status, body)
	}
}

func TestUploadFieldsInAnyOrder(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	who := e.token(e.a, allUploadScopes)
	path := "/api/p/v1/drivers/" + e.a.driverID.String() + "/document"
	// File before DocumentType and FileName: accepted.
	status, doc, _ := e.post(path, who, fileP("part-name.png", pngBytes), fieldP("FileName", "cdl front.png"), fieldP("DocumentType", "Driver License"))
	if status != 200 {
		t.Fatalf("status %d %v", status, doc)
	}
	if !regexp.MustCompile(`^cdl front_\d{13}\.png$`).MatchString(doc["AttachmentPath"].(string)) {
		t.Errorf("AttachmentPath %v: FileName should win over the part's name", doc["AttachmentPath"])
	}
	// File before an unknown DocumentType: refused, and the bytes already
	// streamed to storage are removed again.
	status, body, _ := e.post(path, who, fileP("a.png", pngBytes), fieldP("DocumentType", "Passport"))
	if status != 400 || !strings.Contains(problemText(body), "'Passport' is not a document type of a driver") {
		t.Fatalf("status %d %v", status, body)
	}
	if n := e.blobCount(); n != 1 {
		t.Errorf("blobs: %d, want only the accepted upload's", n)
	}
	if n := e.documentRows(); n != 1 {
		t.Errorf("rows: %d, want 1", n)
	}
}

func TestUploadFileNameCannotEscape(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	who := e.token(e.a, allUploadScopes)
	path := "/api/p/v1/carriers/" + e.a.carrierID.String() + "/document"
	ms := strconv.FormatInt(e.clock.Now().UnixMilli(), 10)
	for _, c := range []struct{ fileName, partName, want string }{
		{"../../etc/passwd", "a.pdf", "passwd_" + ms + ".pdf"},
		{`..\..\windows\system.ini`, "a.pdf", "system_" + ms + ".pdf"}, // the extension follows the bytes
		{"", "../../x/agreement.pdf", "agreement_" + ms + ".pdf"},
		// Tab and line breaks pass the text rule (a NUL is a 400, see
		// apptest's hostile inputs) and are removed from the name.
		{"bad\tname\r\n.pdf", "a.pdf", "badname_" + ms + ".pdf"},
		{"..", "a.pdf", "document_" + ms + ".pdf"},
	} {
		status, doc, _ := e.post(path, who, fieldP("DocumentType", "Carrier Agreement"), fieldP("FileName", c.fileName), fileP(c.partName, pdfBytes))
		if status != 200 {
			t.Fatalf("%q: status %d %v", c.fileName, status, doc)
		}
		if doc["AttachmentPath"] != c.want {
			t.Errorf("%q: AttachmentPath %q, want %q", c.fileName, doc["AttachmentPath"], c.want)
		}
	}
	// The stored objects are named by the server alone: <tenant>/<uuid>.
	var keys []string
	if err := e.app.DB.Bun.NewRaw(`SELECT blob_key FROM documents`).Scan(t.Context(), &keys); err != nil {
		t.Fatal(err)
	}
	key := regexp.MustCompile(`^` + e.a.tenantID.String() + `/[0-9a-f-]{36}$`)
	for _, k := range keys {
		if !key.MatchString(k) {
			t.Errorf("blob key %q contains more than tenant/uuid", k)
		}
	}
	if n := e.blobCount(); n != 5 {
		t.Errorf("blobs under the blob root: %d, want 5", n)
	}
}

func TestUploadLinkWorksThenExpires(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	status, doc, _ := e.post("/api/p/v1/loads/"+e.a.loadNumber+"/document", e.token(e.a, allUploadScopes),
		fieldP("DocumentType", "Bill of Lading"), fileP("bol.gif", gifBytes))
	if status != 200 {
		t.Fatalf("upload: %d %v", status, doc)
	}
	d, err := e.app.Documents.Store.Document(t.Context(), e.a.tenantID, mustUUID(t, doc["id"].(string)))
	if err != nil {
		t.Fatal(err)
	}
	link := e.app.Documents.DownloadURL(e.a.tenantID, d)
	if !strings.HasPrefix(link, e.url+"/api/p/documents/"+d.ID.String()+"/content?") {
		t.Fatalf("link %q", link)
	}
	res := get(t, link)
	if res.status != 200 || string(res.body) != string(gifBytes) {
		t.Fatalf("download: %d %q", res.status, res.body)
	}
	if res.header.Get("Content-Type") != "image/gif" || !strings.Contains(res.header.Get("Content-Disposition"), `filename=bol_`) {
		t.Errorf("headers %v", res.header)
	}
	// A tampered link (another document id, tenant or expiry) opens nothing.
	for _, bad := range []string{
		strings.Replace(link, "expires=", "expires=9", 1),
		strings.Replace(link, e.a.tenantID.String(), e.b.tenantID.String(), 1),
		strings.Replace(link, "sig=", "sig=00", 1),
	} {
		if r := get(t, bad); r.status != 403 {
			t.Errorf("tampered link %q: %d", bad, r.status)
		}
	}
	e.clock.Advance(documents.DownloadLinkTTL - time.Second)
	if r := get(t, link); r.status != 200 {
		t.Errorf("link just before expiry: %d", r.status)
	}
	e.clock.Advance(time.Second)
	r := get(t, link)
	if r.status != 403 || !strings.Contains(string(r.body), "expired") {
		t.Errorf("expired link: %d %s", r.status, r.body)
	}
}

func TestUploadNegotiatesJSON(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	body, ct := multipartBody(t, fieldP("DocumentType", "Bill of Lading"), fileP("a.pdf", pdfBytes))
	req, _ := http.NewRequest(http.MethodPost, e.url+"/api/p/v1/loads/"+e.a.loadNumber+"/document", body)
	req.Header.Set("Content-Type", ct)
	req.Header.Set("Accept", "text/html")
	req.Header.Set("Authorization", "Bearer "+e.token(e.a, allUploadScopes))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = res.Body.Close()
	if res.StatusCode != http.StatusNotAcceptable || res.Header.Get("Content-Type") != rest.ProblemType {
		t.Errorf("Accept: text/html: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	if e.documentRows() != 0 {
		t.Error("a refused upload was stored")
	}
}

// The upload answers, success and problems, are what the OpenAPI document
// says.
func TestUploadAnswersMatchOpenAPI(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	c := newOpenAPIChecker(t, e.url)
	who := e.token(e.a, allUploadScopes)
	for _, r := range []struct {
		path   string
		parts  []part
		status int
	}{
		{"/api/p/v2.0/loads/" + e.a.loadNumber + "/document", []part{fieldP("DocumentType", "Bill of Lading"), fileP("a.pdf", pdfBytes)}, 200},
		{"/api/p/v1/trips/" + e.a.tripID.String() + "/document", []part{fieldP("DocumentType", "POD"), fileP("a.png", pngBytes)}, 200},
		{"/api/p/v1/drivers/" + e.a.driverID.String() + "/document", []part{fieldP("DocumentType", "Nope"), fileP("a.pdf", pdfBytes)}, 400},
		{"/api/p/v1/carriers/" + e.a.carrierID.String() + "/document", []part{fieldP("DocumentType", "Other Documents"), fileP("a.txt", []byte("text"))}, 415},
		{"/api/p/v1/loads/NOPE/document", []part{fieldP("DocumentType", "Bill of Lading"), fileP("a.pdf", pdfBytes)}, 404},
	} {
		body, ct := multipartBody(t, r.parts...)
		raw, _ := io.ReadAll(body)
		req, _ := http.NewRequest(http.MethodPost, e.url+r.path, bytes.NewReader(raw))
		req.Header.Set("Content-Type", ct)
		req.Header.Set("Authorization", "Bearer "+who)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resBody, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if res.StatusCode != r.status {
			t.Fatalf("%s: %d %s", r.path, res.StatusCode, resBody)
		}
		c.check(t, http.MethodPost, e.url+r.path, ct, string(raw), res, resBody)
	}
}
