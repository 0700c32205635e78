package documents_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/readstest"
)

// An upload is judged by its content and stored against the caller's own
// load: a PDF is saved under the caller's tenant, a file that is no document
// is refused, a load number the tenant lacks is not found; neither refusal
// leaves a row.
func TestUploadsOverTheStore(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	a := readstest.NewTenant(t, db, "docs-a") // each seeded with load L-100 and its trip
	b := readstest.NewTenant(t, db, "docs-b")
	blobs, err := storage.OpenBlobs(context.Background(), "file://"+t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer blobs.Close()
	svc := &documents.Service{Store: &storage.Documents{DB: db}, Blobs: blobs}
	ctx := domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: a.Tenant, ClientID: "c",
		Scopes: []domain.Scope{domain.ScopeLoadUpdate}})
	upload := func(load, body string) (domain.Document, error) {
		return svc.UploadFile(ctx, domain.ParentLoad, load, "Proof of Delivery", nil, "pod.pdf", strings.NewReader(body))
	}
	doc, err := upload("L-100", "%PDF-1.7 body")
	if err != nil {
		t.Fatalf("a PDF to the tenant's load: %v", err)
	}
	if doc.ParentID != "L-100" || doc.ContentType != "application/pdf" {
		t.Errorf("stored for %s as %q", doc.ParentID, doc.ContentType)
	}
	if _, err := upload("L-100", "plain text, not a document"); domain.CodeOf(err) != domain.CodeUnsupportedType {
		t.Errorf("a text file: %v, want %s", err, domain.CodeUnsupportedType)
	}
	if _, err := upload("L-404", "%PDF-1.7 body"); domain.CodeOf(err) != domain.CodeNotFound {
		t.Errorf("a load the tenant lacks: %v, want %s", err, domain.CodeNotFound)
	}
	for tenant, want := range map[uuid.UUID]int{a.Tenant: 1, b.Tenant: 0} {
		var n int
		if err := db.Pool.QueryRow(context.Background(), `SELECT count(*) FROM documents WHERE tenant_id = $1`, tenant).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("tenant %s has %d document rows, want %d", tenant, n, want)
		}
	}
}
