package storage_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
)

func TestBlobsDefaultRelativeFileURL(t *testing.T) {
	t.Chdir(t.TempDir())
	ctx := context.Background()
	b, err := storage.OpenBlobs(ctx, "file://.data/blobs") // docs/architecture.md's default
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Write(ctx, "t/k", "application/pdf", strings.NewReader("%PDF-")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(".data/blobs/t/k"); err != nil {
		t.Errorf("not stored under the working directory's .data/blobs: %v", err)
	}
	r, err := b.Open(ctx, "t/k")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(r)
	_ = r.Close()
	if string(got) != "%PDF-" {
		t.Errorf("read back %q", got)
	}
	if err := b.Delete(ctx, "t/k"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Open(ctx, "t/k"); domain.CodeOf(err) != domain.CodeNotFound {
		t.Errorf("deleted object: %v, want NOT_FOUND", err)
	}
	if err := b.Delete(ctx, "t/k"); err != nil {
		t.Errorf("deleting twice: %v", err)
	}
}

// TestBlobsWriteNothingOutsideTheirDirectory: a write's temporary file lies
// beside its object, not in os.TempDir: with no temporary directory (an
// image without /tmp) or one on another file system than the documents'
// volume (where the final rename would fail), documents are stored all
// the same; a failed write leaves nothing, no partial object and no
// temporary file. Not parallel: it sets TMPDIR.
func TestBlobsWriteNothingOutsideTheirDirectory(t *testing.T) {
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "missing"))
	dir := t.TempDir()
	ctx := context.Background()
	b, err := storage.OpenBlobs(ctx, "file://"+dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Write(ctx, "t/k", "application/pdf", strings.NewReader("%PDF-")); err != nil {
		t.Fatalf("write without a temporary directory: %v", err)
	}
	if err := b.Write(ctx, "t/failed", "application/pdf", io.MultiReader(strings.NewReader("%PDF- partial"), failingReader{})); err == nil {
		t.Fatal("write of a failing reader succeeded")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "t", "*"))
	if !slices.Equal(files, []string{filepath.Join(dir, "t", "k"), filepath.Join(dir, "t", "k.attrs")}) {
		t.Errorf("the bucket holds %q, want only t/k and its attributes", files)
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// TestBlobsSchemeWithoutDriver: a bucket URL whose driver this build lacks
// (the test binary links neither cloud driver, as the default build) is
// refused naming the build tag that has it, before any bucket is touched.
func TestBlobsSchemeWithoutDriver(t *testing.T) {
	t.Parallel()
	for url, want := range map[string]string{
		"s3://bucket?region=us-east-1": "no driver for s3:// buckets: build it with the blob_s3 tag (make build TAGS=blob_s3",
		"gs://bucket":                  "no driver for gs:// buckets: build it with the blob_gcs tag (make build TAGS=blob_gcs",
		"azblob://container":           `no driver for "azblob://" buckets`,
	} {
		_, err := storage.OpenBlobs(context.Background(), url)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "HAULGRAPH_BLOB_URL: ") {
			t.Errorf("OpenBlobs(%s) = %v, want an error containing %q", url, err, want)
		}
	}
}
