package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain/documents"
)

// A load holds at most documents.MaxPerParent documents: the upload past
// it is refused 409 on REST (problem+json) and on GraphQL (CONFLICT) and
// stores neither a row nor a blob; the query cost of the load's documents
// field covers every document it returns.
func TestDocumentsBoundedPerParent(t *testing.T) {
	t.Parallel()
	e := startUploads(t)
	who := e.token(e.a, allUploadScopes+" load:read")
	// All but one written directly, the last by an upload.
	err := e.app.DB.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		for i := range documents.MaxPerParent - 1 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO documents (id, tenant_id, parent_type, parent_id, parent_uuid, attachment_path,
				attachment_type, attachment_size, content_type, blob_key, uploaded_at)
				VALUES (?, ?, 'Load', ?, ?, 'a.pdf', 'Bill of Lading', 10, 'application/pdf', ?, ?)`,
				uuid.New(), e.a.tenantID, e.a.loadNumber, e.a.loadID, "missing/"+uuid.NewString(), time.Now().Add(-time.Duration(i)*time.Minute)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	path := "/api/p/v1/loads/" + e.a.loadNumber + "/document"
	if status, body, _ := e.post(path, who, fieldP("DocumentType", "Bill of Lading"), fileP("last.pdf", pdfBytes)); status != 200 {
		t.Fatalf("upload %d of %d: %d %v", documents.MaxPerParent, documents.MaxPerParent, status, body)
	}
	rows, blobs := e.documentRows(), e.blobCount()
	if rows != documents.MaxPerParent || blobs != 1 {
		t.Fatalf("%d rows, %d blobs", rows, blobs)
	}

	status, body, h := e.post(path, who, fieldP("DocumentType", "Bill of Lading"), fileP("one-more.pdf", pdfBytes))
	if status != http.StatusConflict || !strings.HasPrefix(h.Get("Content-Type"), "application/problem+json") ||
		!strings.Contains(body["detail"].(string), "at most 50 documents") {
		t.Errorf("REST upload past the bound: %d %s %v, want 409 problem+json", status, h.Get("Content-Type"), body)
	}
	q := `mutation($file: Upload!) { uploadLoadDocument(loadNumber: "` + e.a.loadNumber + `", documentType: "Bill of Lading", file: $file) { id } }`
	_, ans := gqlUpload(t, e, who, q, bytes.NewReader(pdfBytes), "one-more.pdf", 0)
	if len(ans.Errors) != 1 || ans.Code(0) != "CONFLICT" || !ans.IsNull("uploadLoadDocument") {
		t.Errorf("GraphQL upload past the bound: %+v, want CONFLICT and no data", ans)
	}
	if e.documentRows() != rows || e.blobCount() != blobs {
		t.Errorf("refused uploads stored something: %d rows, %d blobs; want %d, %d", e.documentRows(), e.blobCount(), rows, blobs)
	}

	// Worst case read: the full load's documents cost at least what they return.
	b, _ := json.Marshal(map[string]any{"query": `{ load(loadNumber: "` + e.a.loadNumber + `") { documents { id attachmentType } } }`})
	req, _ := http.NewRequest(http.MethodPost, e.url+"/graphql", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+who)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out struct {
		Data struct {
			Load struct {
				Documents []json.RawMessage `json:"documents"`
			} `json:"load"`
		} `json:"data"`
		Extensions struct {
			Cost struct {
				Requested int `json:"requestedQueryCost"`
				Actual    int `json:"actualQueryCost"`
			} `json:"cost"`
		} `json:"extensions"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		t.Fatal(err)
	}
	c := out.Extensions.Cost
	t.Logf("a load's %d documents: requested %d, returned %d objects", len(out.Data.Load.Documents), c.Requested, c.Actual)
	if len(out.Data.Load.Documents) != documents.MaxPerParent || c.Actual < documents.MaxPerParent || c.Requested < c.Actual {
		t.Errorf("%d documents returned: charged %d for %d objects", len(out.Data.Load.Documents), c.Requested, c.Actual)
	}
}
