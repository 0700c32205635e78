package storage

import (
	"context"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	"gocloud.dev/blob"
	"gocloud.dev/blob/fileblob"
	"gocloud.dev/gcerrors"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
)

// Blobs is the documents.BlobStore on a gocloud.dev bucket (file:// by default;
// s3:// and gs:// are registered by cmd/haulgraph in a binary built with the
// blob_s3 / blob_gcs tag).
type Blobs struct{ Bucket *blob.Bucket }

var _ documents.BlobStore = (*Blobs)(nil)

// OpenBlobs opens the bucket at rawURL (HAULGRAPH_BLOB_URL). For file:// a
// relative directory such as file://.data/blobs is accepted (gocloud would
// read ".data" as a host) and created when missing.
func OpenBlobs(ctx context.Context, rawURL string) (*Blobs, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("storage: blob URL: %w", err)
	}
	if u.Scheme == "file" {
		dir := u.Path
		if u.Host != "" {
			dir = u.Host + u.Path
		}
		dir = filepath.FromSlash(dir)
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return nil, fmt.Errorf("storage: blob directory: %w", err)
		}
		// Each write goes to a temporary file beside its object, then is
		// renamed: in os.TempDir, on another file system than a volume of
		// documents, the rename would fail (EXDEV).
		b, err := fileblob.OpenBucket(dir, &fileblob.Options{NoTempDir: true})
		if err != nil {
			return nil, fmt.Errorf("storage: open blob directory: %w", err)
		}
		return &Blobs{Bucket: b}, nil
	}
	if !blob.DefaultURLMux().ValidBucketScheme(u.Scheme) {
		return nil, noBlobDriver(u.Scheme)
	}
	b, err := blob.OpenBucket(ctx, rawURL)
	if err != nil {
		return nil, fmt.Errorf("storage: open bucket: %w", err)
	}
	return &Blobs{Bucket: b}, nil
}

// blobDriverTags names the build tag that links each cloud scheme's driver.
var blobDriverTags = map[string]string{"s3": "blob_s3", "gs": "blob_gcs"}

// noBlobDriver says which build has the driver the binary lacks, so that an
// operator fixes the build rather than the URL.
func noBlobDriver(scheme string) error {
	if tag, ok := blobDriverTags[scheme]; ok {
		return fmt.Errorf("HAULGRAPH_BLOB_URL: this binary has no driver for %s:// buckets: build it with the %s tag (make build TAGS=%s; docs/operating.md, \"Document storage\")", scheme, tag, tag)
	}
	return fmt.Errorf("HAULGRAPH_BLOB_URL: no driver for %q buckets (file://, and s3:// or gs:// in a binary built with the blob_s3 or blob_gcs tag; docs/operating.md, \"Document storage\")", scheme+"://")
}

// Close releases the bucket.
func (b *Blobs) Close() error { return b.Bucket.Close() }

// Write streams r to key. A failing r cancels the write, which gocloud then
// discards: no partial object is ever visible under key.
func (b *Blobs) Write(ctx context.Context, key, contentType string, r io.Reader) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := b.Bucket.NewWriter(ctx, key, &blob.WriterOptions{ContentType: contentType})
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		cancel()
		_ = w.Close()
		return err
	}
	return w.Close()
}

// Open reads key; a missing object is NOT_FOUND.
func (b *Blobs) Open(ctx context.Context, key string) (io.ReadCloser, error) {
	r, err := b.Bucket.NewReader(ctx, key, nil)
	if gcerrors.Code(err) == gcerrors.NotFound {
		return nil, domain.NotFound("the document's content is no longer available")
	}
	return r, err
}

// Delete removes key; an absent key is not an error.
func (b *Blobs) Delete(ctx context.Context, key string) error {
	if err := b.Bucket.Delete(ctx, key); err != nil && gcerrors.Code(err) != gcerrors.NotFound {
		return err
	}
	return nil
}
