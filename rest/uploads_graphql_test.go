package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/testkit"
)

// gqlUpload posts a GraphQL multipart request (operations, map, one file
// under "0" bound to $file) and returns the status and decoded answer.
func gqlUpload(t *testing.T, e *uploadEnv, principal, query string, file io.Reader, filename string, length int64) (int, testkit.GraphQLAnswer) {
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
	req.Header.Set("Authorization", "Bearer "+principal)
	if length > 0 {
		req.ContentLength = length
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("graphql upload: %v", err)
	}
	defer res.Body.Close()
	var out testkit.GraphQLAnswer
	raw, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("graphql answer %d not JSON: %q", res.StatusCode, raw)
	}
	return res.StatusCode, out
}

const docFields = `{ id attachmentPath attachmentType attachmentSize uploadedAt parentId parentType contentType downloadUrl }`

func TestGraphQLUploadsToEveryTarget(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	who := e.token(e.a, allUploadScopes)
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
		var d map[string]any
		ans.Field(t, c.field, &d)
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
	t.Parallel()
	e := startUploads(t)
	who := e.token(e.a, allUploadScopes)
	trip := `tripId: "` + e.a.tripID.String() + `"`
	for _, c := range []struct {
		name, who, args, docType string
		file                     []byte
		code, want               string
	}{
		{"refused type", who, trip, "Carrier Invoice", pdfBytes, "BAD_USER_INPUT", "carrier's invoice is a billing document"},
		{"unknown type", who, trip, "Selfie", pdfBytes, "BAD_USER_INPUT", "'Selfie' is not a document type of a trip"},
		{"text as pdf", who, trip, "POD", []byte("plain text"), "UNSUPPORTED_MEDIA_TYPE", "not a PDF, JPEG, PNG or GIF"},
		{"empty file", who, trip, "POD", nil, "BAD_USER_INPUT", "the file is empty"},
		{"another tenant's trip", who, `tripId: "` + e.b.tripID.String() + `"`, "POD", pdfBytes, "NOT_FOUND", `trip "` + e.b.tripID.String() + `" was not found`},
		{"missing scope", e.token(e.a, "load:update"), trip, "POD", pdfBytes, "FORBIDDEN", "the token lacks the scope trip:update"},
	} {
		q := `mutation($file: Upload!) { uploadTripDocument(` + c.args + `, documentType: "` + c.docType + `", file: $file) { id } }`
		_, ans := gqlUpload(t, e, c.who, q, bytes.NewReader(c.file), "a.pdf", 0)
		if len(ans.Errors) != 1 || !ans.IsNull("uploadTripDocument") {
			t.Errorf("%s: %+v, want one error and no data", c.name, ans)
			continue
		}
		got := ans.Errors[0]
		text := got.Message
		if fields, ok := got.Extensions["fields"].(map[string]any); ok {
			text += " " + fmt.Sprint(fields)
		}
		if got.Extensions["code"] != c.code || !strings.Contains(text, c.want) {
			t.Errorf("%s: %s %q, want %s saying %q", c.name, got.Extensions["code"], text, c.code, c.want)
		}
	}
	if e.documentRows() != 0 || e.blobCount() != 0 {
		t.Errorf("refused GraphQL uploads left rows or blobs")
	}
}

func TestGraphQLUploadOverLimit(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	q := `mutation($file: Upload!) { uploadLoadDocument(loadNumber: "` + e.a.loadNumber + `", documentType: "Bill of Lading", file: $file) { id } }`
	var sent atomic.Int64
	status, ans := gqlUpload(t, e, e.token(e.a, allUploadScopes), q, &pdfStream{left: 30 << 20, sent: &sent}, "big.pdf", 0)
	if status != 413 || len(ans.Errors) != 1 || ans.Code(0) != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("30 MB GraphQL upload: %d %+v", status, ans)
	}
	if e.documentRows() != 0 || e.blobCount() != 0 {
		t.Errorf("a refused upload left a row or a blob behind")
	}
}

func TestGraphQLDocumentsFieldsOnLoadTripDriverCarrier(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	up := e.token(e.a, allUploadScopes)
	for _, c := range []struct{ path, docType string }{
		{"/api/p/v1/loads/" + e.a.loadNumber + "/document", "Proof of Delivery"},
		{"/api/p/v1/trips/" + e.a.tripID.String() + "/document", "Scale Ticket"},
		{"/api/p/v1/drivers/" + e.a.driverID.String() + "/document", "Drug Test"},
		{"/api/p/v1/carriers/" + e.a.carrierID.String() + "/document", "Carrier Authority"},
		// tenant B's load has the same shape; none of it may show in A's graph
		{"/api/p/v1/loads/" + e.b.loadNumber + "/document", "Bill of Lading"},
	} {
		tok := up
		if strings.Contains(c.path, e.b.loadNumber) {
			tok = e.token(e.b, allUploadScopes)
		}
		if status, body, _ := e.post(c.path, tok, fieldP("DocumentType", c.docType), fileP("f.jpg", jpegBytes)); status != 200 {
			t.Fatalf("%s: %d %v", c.path, status, body)
		}
		e.clock.Advance(time.Second)
	}
	// A second load document, newer: listed first.
	if status, body, _ := e.post("/api/p/v1/loads/"+e.a.loadNumber+"/document", up, fieldP("DocumentType", "Bill of Lading"), fileP("g.pdf", pdfBytes)); status != 200 {
		t.Fatalf("%d %v", status, body)
	}
	q := `{ load(loadNumber: "` + e.a.loadNumber + `") {
		documents { attachmentType contentType parentType parentId downloadUrl }
		trips { documents { attachmentType } drivers { documents { attachmentType } } carrier { documents { attachmentType } } } } }`
	body, _ := json.Marshal(map[string]string{"query": q})
	req, _ := http.NewRequest(http.MethodPost, e.url+"/graphql", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.token(e.a, "load:read driver:read carrier:read"))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var ans struct {
		Data struct {
			Load struct {
				Documents []map[string]string
				Trips     []struct {
					Documents []map[string]string
					Drivers   []struct{ Documents []map[string]string }
					Carrier   struct{ Documents []map[string]string }
				}
			}
		}
		Errors []any
	}
	if err := json.NewDecoder(res.Body).Decode(&ans); err != nil || len(ans.Errors) > 0 {
		t.Fatalf("%v %v", err, ans.Errors)
	}
	l := ans.Data.Load
	if len(l.Documents) != 2 || l.Documents[0]["attachmentType"] != "Bill of Lading" || l.Documents[1]["attachmentType"] != "Proof of Delivery" {
		t.Fatalf("load documents (newest first, tenant A only): %v", l.Documents)
	}
	if d := l.Documents[1]; d["contentType"] != "image/jpeg" || d["parentType"] != "Load" || d["parentId"] != e.a.loadNumber {
		t.Errorf("load document %v", d)
	}
	if r := get(t, l.Documents[1]["downloadUrl"]); r.status != 200 || !bytes.Equal(r.body, jpegBytes) {
		t.Errorf("downloadUrl: %d", r.status)
	}
	if len(l.Trips) != 1 {
		t.Fatalf("trips %+v", l.Trips)
	}
	tr := l.Trips[0]
	if len(tr.Documents) != 1 || tr.Documents[0]["attachmentType"] != "Scale Ticket" {
		t.Errorf("trip documents %v", tr.Documents)
	}
	if len(tr.Drivers) != 1 || len(tr.Drivers[0].Documents) != 1 || tr.Drivers[0].Documents[0]["attachmentType"] != "Drug Test" {
		t.Errorf("driver documents %+v", tr.Drivers)
	}
	if len(tr.Carrier.Documents) != 1 || tr.Carrier.Documents[0]["attachmentType"] != "Carrier Authority" {
		t.Errorf("carrier documents %+v", tr.Carrier)
	}
}

// A GraphQL upload that declares a body over the bound is answered before
// any of it is read.
func TestGraphQLUploadDeclaredOverLimit(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	var head strings.Builder
	mw := multipart.NewWriter(&head)
	q := `mutation($file: Upload!) { uploadLoadDocument(loadNumber: "` + e.a.loadNumber + `", documentType: "Bill of Lading", file: $file) { id } }`
	ops, _ := json.Marshal(map[string]any{"query": q, "variables": map[string]any{"file": nil}})
	_ = mw.WriteField("operations", string(ops))
	_ = mw.WriteField("map", `{"0":["variables.file"]}`)
	_, _ = mw.CreateFormFile("0", "big.pdf")
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	const size = 30 << 20
	var sent atomic.Int64
	req, _ := http.NewRequest(http.MethodPost, e.url+"/graphql",
		io.MultiReader(strings.NewReader(head.String()), &pdfStream{left: size, sent: &sent}, strings.NewReader(tail)))
	req.ContentLength = int64(head.Len()) + size + int64(len(tail))
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+e.token(e.a, allUploadScopes))
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var ans testkit.GraphQLAnswer
	_ = json.NewDecoder(res.Body).Decode(&ans)
	if res.StatusCode != 413 || len(ans.Errors) != 1 || ans.Code(0) != "PAYLOAD_TOO_LARGE" {
		t.Fatalf("declared 30 MB: %d %+v", res.StatusCode, ans)
	}
	if e.documentRows() != 0 || e.blobCount() != 0 {
		t.Error("a refused upload left a row or a blob behind")
	}
}

// beginCounter counts the transactions run for API callers.
type beginCounter struct{ n atomic.Int64 }

func (c *beginCounter) BeforeQuery(ctx context.Context, e *bun.QueryEvent) context.Context {
	if domain.PrincipalFrom(ctx) != nil && strings.HasPrefix(e.Query, "BEGIN") {
		c.n.Add(1)
	}
	return ctx
}
func (c *beginCounter) AfterQuery(context.Context, *bun.QueryEvent) {}

// The documents fields are batched: the number of transactions does not grow
// with the number of trips, drivers and carriers.
func TestGraphQLDocumentsAreBatched(t *testing.T) {
	// Not parallel: dataloader batches close on a 2 ms timer, which CPU
	// contention from other tests would split.
	e := startUploads(t)
	up := e.token(e.a, allUploadScopes)
	read := e.token(e.a, "load:read driver:read carrier:read")
	counter := &beginCounter{}
	e.app.DB.Bun.AddQueryHook(counter)
	q := `{ load(loadNumber: "` + e.a.loadNumber + `") { documents { id } trips { documents { id }
		drivers { documents { id } } carrier { documents { id } } } } }`
	run := func() (int64, int) {
		counter.n.Store(0)
		body, _ := json.Marshal(map[string]string{"query": q})
		req, _ := http.NewRequest(http.MethodPost, e.url+"/graphql", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+read)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if strings.Contains(string(raw), `"errors"`) {
			t.Fatalf("%s", raw)
		}
		return counter.n.Load(), strings.Count(string(raw), `"id"`)
	}
	addTrip := func() {
		trip, driver, carrier := uuid.New(), uuid.New(), uuid.New()
		now := time.Now()
		err := e.app.DB.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO carriers (id, tenant_id, name) VALUES (?, ?, 'C')`, carrier, e.a.tenantID); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO drivers (id, tenant_id, name, type) VALUES (?, ?, 'D', 'COMPANY')`, driver, e.a.tenantID); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO trips (id, tenant_id, load_id, trip_number, status, driver_ids, carrier_id, created_at, updated_at)
				VALUES (?, ?, ?, '2', 'Dispatched', ARRAY[?]::uuid[], ?, ?, ?)`, trip, e.a.tenantID, e.a.loadID, driver, carrier, now, now)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []struct{ path, docType string }{
			{"/api/p/v1/trips/" + trip.String() + "/document", "POD"},
			{"/api/p/v1/drivers/" + driver.String() + "/document", "License"},
			{"/api/p/v1/carriers/" + carrier.String() + "/document", "Carrier Agreement"},
		} {
			if status, body, _ := e.post(p.path, up, fieldP("DocumentType", p.docType), fileP("a.pdf", pdfBytes)); status != 200 {
				t.Fatalf("%s: %d %v", p.path, status, body)
			}
		}
	}
	addTrip()
	one, ids1 := run()
	for range 9 {
		addTrip()
	}
	ten, ids10 := run()
	if ids10 != ids1+9*3 {
		t.Fatalf("10 trips show %d ids, 1 trip %d: want 27 more", ids10, ids1)
	}
	// One query per level: 9 more trips add no query, where a query per
	// parent would add 27. Batches close on a short timer (loaders.BatchWait),
	// so a machine starved of CPU may split a level in two; anything near
	// N+1 still fails.
	if ten > one+3 {
		t.Errorf("transactions with 1 trip: %d, with 10 trips: %d; want about one per level (a query per parent adds 27)", one, ten)
	}
}
