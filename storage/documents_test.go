package storage_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// docFixture makes a tenant with a load and its trip.
func docFixture(t *testing.T, db *storage.DB, slug string) (tenant, load, trip uuid.UUID) {
	t.Helper()
	tenant, load, trip, sub := uuid.New(), uuid.New(), uuid.New(), uuid.New()
	now := time.Now()
	err := db.InSystem(context.Background(), func(ctx context.Context, tx bun.Tx) error {
		for _, q := range []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO tenants (id, slug, name) VALUES (?, ?, ?)`, []any{tenant, slug, slug}},
			{`INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'S')`, []any{sub, tenant}},
			{`INSERT INTO loads (id, tenant_id, load_number, status, billing_status, subsidiary_id, created_at, updated_at)
			  VALUES (?, ?, 'L1', 'Open', 'Released', ?, ?, ?)`, []any{load, tenant, sub, now, now}},
			{`INSERT INTO trips (id, tenant_id, load_id, trip_number, status, created_at, updated_at)
			  VALUES (?, ?, ?, '1', 'Open', ?, ?)`, []any{trip, tenant, load, now, now}},
		} {
			if _, err := tx.ExecContext(ctx, q.sql, q.args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return tenant, load, trip
}

func newDoc(at time.Time) domain.Document {
	return domain.Document{ID: uuid.New(), AttachmentPath: "a_1.pdf", AttachmentType: "POD", AttachmentSize: 3,
		UploadedAt: at, ContentType: "application/pdf", BlobKey: "k/" + uuid.NewString()}
}

func TestDocumentsInsertEmitsLoadChangeInTheSameTransaction(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	tenant, load, trip := docFixture(t, db, "a")
	var changed []uuid.UUID
	fail := false
	store := &storage.Documents{DB: db, LoadChanged: func(ctx context.Context, tx *storage.Tx, loadID uuid.UUID) error {
		if fail {
			return errors.New("outbox down")
		}
		changed = append(changed, loadID)
		return nil
	}}
	p, err := store.DocumentParent(ctx, tenant, domain.ParentTrip, trip.String())
	if err != nil || p.LoadID == nil || *p.LoadID != load || p.PublicID != trip.String() {
		t.Fatalf("trip parent: %+v %v", p, err)
	}
	if err := store.InsertDocument(ctx, tenant, p, newDoc(time.Now())); err != nil {
		t.Fatal(err)
	}
	if len(changed) != 1 || changed[0] != load {
		t.Errorf("load change %v, want [%s]", changed, load)
	}
	// When the change cannot be recorded, the document is not recorded either.
	fail = true
	d := newDoc(time.Now())
	if err := store.InsertDocument(ctx, tenant, p, d); err == nil {
		t.Fatal("insert succeeded without its load change")
	}
	if _, err := store.Document(ctx, tenant, d.ID); domain.CodeOf(err) != domain.CodeNotFound {
		t.Errorf("document without its event is visible: %v", err)
	}
	// Driver documents change no load.
	fail = false
	changed = nil
	dp := documents.Parent{Type: domain.ParentDriver, PublicID: "x", UUID: uuid.New()}
	if err := store.InsertDocument(ctx, tenant, dp, newDoc(time.Now())); err != nil || len(changed) != 0 {
		t.Errorf("driver document: %v, load changes %v", err, changed)
	}
}

func TestDocumentsOfBatchesBoundsAndIsolates(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	ctx := context.Background()
	tenantA, _, tripA := docFixture(t, db, "a")
	tenantB, _, tripB := docFixture(t, db, "b")
	store := &storage.Documents{DB: db}
	pa, _ := store.DocumentParent(ctx, tenantA, domain.ParentTrip, tripA.String())
	pb, _ := store.DocumentParent(ctx, tenantB, domain.ParentTrip, tripB.String())
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5 {
		if err := store.InsertDocument(ctx, tenantA, pa, newDoc(base.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.InsertDocument(ctx, tenantB, pb, newDoc(base)); err != nil {
		t.Fatal(err)
	}
	got, err := store.DocumentsOf(ctx, tenantA, domain.ParentTrip, []uuid.UUID{tripA, tripB}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(got[tripA]) != 3 || !got[tripA][0].UploadedAt.Equal(base.Add(4*time.Minute)) {
		t.Errorf("tenant A's trip: %d documents, newest first wanted: %+v", len(got[tripA]), got[tripA])
	}
	if len(got[tripB]) != 0 {
		t.Errorf("tenant A read tenant B's documents: %+v", got[tripB])
	}
	if _, err := store.Document(ctx, tenantB, got[tripA][0].ID); domain.CodeOf(err) != domain.CodeNotFound {
		t.Errorf("tenant B read tenant A's document: %v", err)
	}
}

func TestUploadLeavesNoBytesWhenTheRowFails(t *testing.T) {
	t.Parallel()
	db := dbtest.New(t)
	tenant, _, trip := docFixture(t, db, "a")
	dir := t.TempDir()
	blobs, err := storage.OpenBlobs(context.Background(), "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer blobs.Close()
	outboxDown := errors.New("outbox down")
	docs := &documents.Service{
		Store: &storage.Documents{DB: db, LoadChanged: func(context.Context, *storage.Tx, uuid.UUID) error { return outboxDown }},
		Blobs: blobs,
	}
	ctx := domain.WithPrincipal(context.Background(), &domain.Principal{TenantID: tenant, Scopes: []domain.Scope{domain.ScopeTripUpdate}})
	_, err = docs.UploadFile(ctx, domain.ParentTrip, trip.String(), "POD", nil, "pod.pdf", strings.NewReader("%PDF-1.7 body"))
	if !errors.Is(err, outboxDown) {
		t.Fatalf("upload: %v, want the store's failure", err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, tenant.String()))
	for _, e := range entries {
		t.Errorf("bytes left behind: %s", e.Name())
	}
	var n int
	_ = db.Bun.QueryRowContext(context.Background(), "SELECT count(*) FROM documents").Scan(&n)
	if n != 0 {
		t.Errorf("%d document rows", n)
	}
}
