package rest_test

import (
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/domain"
)

// pdfStream produces a PDF-looking file of n bytes without holding it in
// memory, counting what the client actually sent.
type pdfStream struct {
	left int64
	sent *atomic.Int64
	head bool
}

func (s *pdfStream) Read(p []byte) (int, error) {
	if s.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > s.left {
		p = p[:s.left]
	}
	clear(p)
	if !s.head {
		s.head = true
		p = p[:copy(p, "%PDF-1.7\n")]
	}
	s.left -= int64(len(p))
	s.sent.Add(int64(len(p)))
	return len(p), nil
}

// streamedUpload posts DocumentType and an n-byte generated file as a
// chunked multipart body (no Content-Length, so the server must decide
// while reading).
func streamedUpload(t *testing.T, e *uploadEnv, path string, n int64, sent *atomic.Int64, withLength bool) (int, map[string]any) {
	t.Helper()
	var head strings.Builder
	mw := multipart.NewWriter(&head)
	_ = mw.WriteField("DocumentType", "Bill of Lading")
	_, _ = mw.CreateFormFile("File", "big.pdf")
	tail := "\r\n--" + mw.Boundary() + "--\r\n"
	body := io.MultiReader(strings.NewReader(head.String()), &pdfStream{left: n, sent: sent}, strings.NewReader(tail))
	req, _ := http.NewRequest(http.MethodPost, e.url+path, body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", "Bearer "+e.token(e.a, allUploadScopes))
	if withLength {
		req.ContentLength = int64(head.Len()) + n + int64(len(tail))
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	defer res.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(res.Body).Decode(&out)
	return res.StatusCode, out
}

func TestUploadOverLimitIsRefusedWhileStreaming(t *testing.T) {
	// Not parallel: it measures the whole process's allocations.
	e := startUploads(t)
	path := "/api/p/v1/loads/" + e.a.loadNumber + "/document"
	const size = 30 << 20

	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	var sent atomic.Int64
	status, body := streamedUpload(t, e, path, size, &sent, false)
	runtime.ReadMemStats(&after)

	if status != 413 || !strings.Contains(problemText(body), "the file exceeds the limit of 26214400 bytes (25 MB) for load documents") {
		t.Fatalf("30 MB upload: status %d %v", status, body)
	}
	// Client and server share this process: everything both allocated while
	// 30 MB went by stays a small fraction of it (nothing buffered the file).
	t.Logf("allocated %d KB, sent %d MB", (after.TotalAlloc-before.TotalAlloc)>>10, sent.Load()>>20)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 6<<20 {
		t.Errorf("allocated %d MB during a 30 MB upload: the body was buffered", alloc>>20)
	}
	if e.documentRows() != 0 || e.blobCount() != 0 {
		t.Errorf("a refused upload left a row or a blob behind")
	}

	// With a Content-Length over the limit the server answers before reading.
	sent.Store(0)
	status, body = streamedUpload(t, e, path, size, &sent, true)
	if status != 413 {
		t.Fatalf("declared 30 MB: status %d %v", status, body)
	}

	// Just under the limit is stored in full.
	sent.Store(0)
	status, body = streamedUpload(t, e, path, 25<<20, &sent, false)
	if status != 200 || body["AttachmentSize"] != float64(25<<20) {
		t.Fatalf("25 MB upload: status %d %v", status, body)
	}
}

func TestUploadLimitIsConfigurablePerTarget(t *testing.T) {
	t.Parallel()
	e := startUploads(t, func(c *app.Config) {
		c.UploadMaxBytes = map[domain.DocumentParentType]int64{domain.ParentDriver: 1000}
	})
	who := e.token(e.a, allUploadScopes)
	big := append(append([]byte{}, pdfBytes...), make([]byte, 1500)...)
	status, body, _ := e.post("/api/p/v1/drivers/"+e.a.driverID.String()+"/document", who, fieldP("DocumentType", "License"), fileP("l.pdf", big))
	if status != 413 || !strings.Contains(problemText(body), "limit of 1000 bytes") {
		t.Errorf("driver over its 1000-byte limit: %d %v", status, body)
	}
	exact := append(append([]byte{}, pdfBytes...), make([]byte, 1000-len(pdfBytes))...)
	if status, body, _ := e.post("/api/p/v1/drivers/"+e.a.driverID.String()+"/document", who, fieldP("DocumentType", "License"), fileP("l.pdf", exact)); status != 200 {
		t.Errorf("driver at exactly its limit: %d %v", status, body)
	}
	if status, body, _ := e.post("/api/p/v1/carriers/"+e.a.carrierID.String()+"/document", who, fieldP("DocumentType", "Other Documents"), fileP("l.pdf", big)); status != 200 {
		t.Errorf("carrier keeps the default limit: %d %v", status, body)
	}
}
