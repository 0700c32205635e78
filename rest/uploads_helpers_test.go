package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// uploadEnv is a real instance (fresh database, real listener, real tokens,
// file blobs in a temp dir) with two tenants' fixtures.
type uploadEnv struct {
	t       *testing.T
	srv     *apptest.Server
	url     string
	app     *app.App
	blobDir string
	clock   *testClock
	a, b    tenantFixture
}

type tenantFixture struct {
	tenant         apptest.Tenant
	tenantID       uuid.UUID
	loadNumber     string // a load with a trip
	emptyLoad      string // a load without trips
	loadID, tripID uuid.UUID
	driverID       uuid.UUID
	carrierID      uuid.UUID
}

type testClock struct{ ns atomic.Int64 }

func (c *testClock) Now() time.Time          { return time.Unix(0, c.ns.Load()).UTC() }
func (c *testClock) Set(t time.Time)         { c.ns.Store(t.UnixNano()) }
func (c *testClock) Advance(d time.Duration) { c.ns.Add(int64(d)) }

func startUploads(t *testing.T, configure ...func(*app.Config)) *uploadEnv {
	t.Helper()
	blobDir := t.TempDir()
	clock := &testClock{}
	clock.Set(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	srv := apptest.Start(t, apptest.Options{Configure: func(c *app.Config) {
		c.BlobURL = "file://" + blobDir
		c.Now = clock.Now
		for _, f := range configure {
			f(c)
		}
	}})
	e := &uploadEnv{t: t, srv: srv, url: srv.URL, app: srv.App, blobDir: blobDir, clock: clock}
	e.a = e.fixture("alpha", "L-100")
	e.b = e.fixture("beta", "L-200")
	return e
}

func (e *uploadEnv) fixture(slug, loadNumber string) tenantFixture {
	tn := apptest.NewTenant(e.t, e.srv, slug)
	f := tenantFixture{tenant: tn, tenantID: tn.ID, loadNumber: loadNumber, emptyLoad: loadNumber + "-EMPTY",
		loadID: uuid.New(), tripID: uuid.New(), driverID: uuid.New(), carrierID: uuid.New()}
	sub := tn.SubsidiaryID
	now := time.Now()
	err := e.app.DB.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO loads (id, tenant_id, load_number, status, billing_status, subsidiary_id, created_at, updated_at)
			  VALUES (?, ?, ?, 'Dispatched', 'Released', ?, ?, ?)`, []any{f.loadID, f.tenantID, f.loadNumber, sub, now, now}},
			{`INSERT INTO loads (id, tenant_id, load_number, status, billing_status, subsidiary_id, created_at, updated_at)
			  VALUES (?, ?, ?, 'Open', 'Released', ?, ?, ?)`, []any{uuid.New(), f.tenantID, f.emptyLoad, sub, now, now}},
			{`INSERT INTO carriers (id, tenant_id, name) VALUES (?, ?, 'Carrier')`, []any{f.carrierID, f.tenantID}},
			{`INSERT INTO drivers (id, tenant_id, name, type) VALUES (?, ?, 'Driver', 'COMPANY')`, []any{f.driverID, f.tenantID}},
			{`INSERT INTO trips (id, tenant_id, load_id, trip_number, status, driver_ids, carrier_id, created_at, updated_at)
			  VALUES (?, ?, ?, '1', 'Dispatched', ARRAY[?]::uuid[], ?, ?, ?)`, []any{f.tripID, f.tenantID, f.loadID, f.driverID, f.carrierID, now, now}},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		e.t.Fatalf("fixture: %v", err)
	}
	return f
}

// every upload scope
const allUploadScopes = "load:update trip:update driver:update carrier:update"

// token is a real access token of the fixture's tenant with scopes.
func (e *uploadEnv) token(f tenantFixture, scopes string) string {
	e.t.Helper()
	return e.srv.Token(e.t, f.tenant, domain.ParseScopes(scopes)...)
}

// part is one multipart part; file parts have a filename.
type part struct {
	name, filename, contentType string
	body                        []byte
}

func fileP(filename string, body []byte) part {
	return part{name: "File", filename: filename, contentType: "application/octet-stream", body: body}
}
func fieldP(name, v string) part { return part{name: name, body: []byte(v)} }

func multipartBody(t *testing.T, parts ...part) (io.Reader, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for _, p := range parts {
		h := textproto.MIMEHeader{}
		if p.filename != "" {
			h.Set("Content-Disposition", `form-data; name="`+p.name+`"; filename="`+p.filename+`"`)
			h.Set("Content-Type", p.contentType)
		} else {
			h.Set("Content-Disposition", `form-data; name="`+p.name+`"`)
		}
		w, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = w.Write(p.body)
	}
	_ = mw.Close()
	return &buf, mw.FormDataContentType()
}

// post sends a multipart upload and returns the status and decoded body.
func (e *uploadEnv) post(path, principal string, parts ...part) (int, map[string]any, http.Header) {
	e.t.Helper()
	body, ct := multipartBody(e.t, parts...)
	return e.do(path, principal, ct, body)
}

func (e *uploadEnv) do(path, principal, contentType string, body io.Reader) (int, map[string]any, http.Header) {
	e.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.url+path, body)
	req.Header.Set("Content-Type", contentType)
	if principal != "" {
		req.Header.Set("Authorization", "Bearer "+principal)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		e.t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	var out map[string]any
	raw, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(raw, &out); err != nil {
		e.t.Fatalf("POST %s: %d, body not JSON: %q", path, res.StatusCode, raw)
	}
	return res.StatusCode, out, res.Header
}

// blobCount counts the stored objects (fileblob's .attrs sidecars aside).
func (e *uploadEnv) blobCount() int {
	e.t.Helper()
	n := 0
	_ = filepath.WalkDir(e.blobDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.HasSuffix(p, ".attrs") {
			n++
		}
		return nil
	})
	return n
}

func (e *uploadEnv) documentRows() int {
	e.t.Helper()
	var n int
	if err := e.app.DB.Bun.QueryRowContext(context.Background(), `SELECT count(*) FROM documents`).Scan(&n); err != nil {
		e.t.Fatal(err)
	}
	return n
}

var (
	pdfBytes  = []byte("%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")
	pngBytes  = append([]byte{0x89, 'P', 'N', 'G', 0x0D, 0x0A, 0x1A, 0x0A}, []byte("\x00\x00\x00\rIHDR rest of png")...)
	jpegBytes = append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, []byte("\x00\x10JFIF\x00 rest of jpeg")...)
	gifBytes  = []byte("GIF89a\x01\x00\x01\x00 rest of gif")
)

type response struct {
	status int
	header http.Header
	body   []byte
}

func get(t *testing.T, url string) response {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return response{res.StatusCode, res.Header, b}
}

func mustUUID(t *testing.T, s string) uuid.UUID {
	t.Helper()
	id, err := uuid.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
