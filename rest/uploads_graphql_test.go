package rest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
)

// gqlUpload posts a GraphQL multipart request (operations, map, one file
// under "0" bound to $file) and returns the status and decoded answer.
func gqlUpload(t *testing.T, e *uploadEnv, principal, query string, file io.Reader, filename string, length int64) (int, gqlAnswer) {
	t.Helper()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		ops, _ := json.Marshal(map[string]any{"query": query, "variables": map[string]any{"file": nil}})
		_ = mw.WriteField("operations", string(ops))
		_ = mw.WriteField("map", `{"0":["variables.file"]}`)
		w, _ := mw.CreateFormFile("0", filename)
		if _, err := io.Copy(w, file); err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.CloseWithError(mw.Close())
	}()
	req, _ := http.NewRequest(http.MethodPost, e.url+"/graphql", pr)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set(testPrincipalHeader, principal)
	if length > 0 {
		req.ContentLength = length
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("graphql upload: %v", err)
	}
	defer res.Body.Close()
	var out gqlAnswer
	raw, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("graphql answer %d not JSON: %q", res.StatusCode, raw)
	}
	return res.StatusCode, out
}

type gqlAnswer struct {
	Data   map[string]map[string]any `json:"data"`
	Errors []struct {
		Message    string         `json:"message"`
		Extensions map[string]any `json:"extensions"`
	} `json:"errors"`
}

const docFields = `{ id attachmentPath attachmentType attachmentSize uploadedAt parentId parentType contentType downloadUrl }`

func TestGraphQLUploadsToEveryTarget(t *testing.T) {
	e := startUploads(t)
	who := e.a.principal(allUploadScopes)
	for _, c := range []struct{ field, args, parentType, parentID, docType string }{
		{"uploadLoadDocument", `loadNumber: "` + e.a.loadNumber + `"`, "Load", e.a.loadNumber, "Proof of Pickup"},
		{"uploadTripDocument", `tripId: "` + e.a.tripID.String() + `"`, "Trip", e.a.tripID.String(), "Scale Ticket"},
		{"uploadDriverDocument", `driverId: "` + e.a.driverID.String() + `"`, "Driver", e.a.driverID.String(), "W9 Form"},
		{"uploadCarrierDocument", `carrierId: "` + e.a.carrierID.String() + `"`, "Carrier", e.a.carrierID.String(), "Carrier Onboarding"},
	} {
		q := `mutation($file: Upload!) { ` + c.field + `(` + c.args + `, documentType: "` + c.docType + `", file: $file, fileName: "../scan.png") ` + docFields + ` }`
		status, ans := gqlUpload(t, e, who, q, bytes.NewReader(pngBytes), "part.png", 0)
		if status != 200 || len(ans.Errors) > 0 {
			t.Fatalf("%s: %d %+v", c.field, status, ans.Errors)
		}
		d := ans.Data[c.field]
		if d["parentType"] != c.parentType || d["parentId"] != c.parentID || d["attachmentType"] != c.docType ||
			d["contentType"] != "image/png" || d["attachmentSize"] != float64(len(pngBytes)) {
			t.Errorf("%s: %v", c.field, d)
		}
		if !regexp.MustCompile(`^scan_\d{13}\.png$`).MatchString(d["attachmentPath"].(string)) {
			t.Errorf("%s: attachmentPath %v", c.field, d["attachmentPath"])
		}
		if r := get(t, d["downloadUrl"].(string)); r.status != 200 || !bytes.Equal(r.body, pngBytes) {
			t.Errorf("%s: download %d", c.field, r.status)
		}
	}
	if n := e.documentRows(); n != 4 {
		t.Errorf("rows %d, want 4", n)
	}
}

func TestGraphQLUploadRejectionsMatchREST(t *testing.T) {
	e := startUploads(t)
	who := e.a.principal(allUploadScopes)
	trip := `tripId: "` + e.a.tripID.String() + `"`
	for _, c := range []struct {
		name, who, args, docType string
		file                     []byte
		want                     string
	}{
		{"refused type", who, trip, "Carrier Invoice", pdfBytes, "carrier's invoice is a billing document"},
		{"unknown type", who, trip, "Selfie", pdfBytes, "'Selfie' is not a document type of a trip"},
		{"text as pdf", who, trip, "POD", []byte("plain text"), "not a PDF, JPEG, PNG or GIF"},
		{"empty file", who, trip, "POD", nil, "the file is empty"},
		{"another tenant's trip", who, `tripId: "` + e.b.tripID.String() + `"`, "POD", pdfBytes, `trip "` + e.b.tripID.String() + `" was not found`},
		{"missing scope", e.a.principal("load:update"), trip, "POD", pdfBytes, "the token lacks the scope trip:update"},
	} {
		q := `mutation($file: Upload!) { uploadTripDocument(` + c.args + `, documentType: "` + c.docType + `", file: $file) { id } }`
		_, ans := gqlUpload(t, e, c.who, q, bytes.NewReader(c.file), "a.pdf", 0)
		if len(ans.Errors) != 1 || !strings.Contains(ans.Errors[0].Message, c.want) || ans.Data != nil {
			t.Errorf("%s: %+v, want an error saying %q", c.name, ans, c.want)
		}
	}
	if e.documentRows() != 0 || e.blobCount() != 0 {
		t.Errorf("refused GraphQL uploads left rows or blobs")
	}
}

func TestGraphQLUploadOverLimit(t *testing.T) {
	e := startUploads(t)
	q := `mutation($file: Upload!) { uploadLoadDocument(loadNumber: "` + e.a.loadNumber + `", documentType: "Bill of Lading", file: $file) { id } }`
	var sent atomic.Int64
	status, ans := gqlUpload(t, e, e.a.principal(allUploadScopes), q, &pdfStream{left: 30 << 20, sent: &sent}, "big.pdf", 0)
	if status != 413 || len(ans.Errors) != 1 || ans.Errors[0].Extensions["code"] != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("30 MB GraphQL upload: %d %+v", status, ans)
	}
	if e.documentRows() != 0 || e.blobCount() != 0 {
		t.Errorf("a refused upload left a row or a blob behind")
	}
}
