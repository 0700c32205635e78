package app

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/documents"
	"github.com/haulgraph/haulgraph/rest"
	"github.com/haulgraph/haulgraph/secretbox"
	"github.com/haulgraph/haulgraph/storage"
)

// mountDocuments builds the document service (PostgreSQL rows, gocloud blob
// bytes, signed links) and mounts the signed download. The uploads are REST
// routes (rest.Deps.Documents, mountREST); GraphQL reaches the service
// through the resolvers' Documents (wireGraphQL).
func (a *App) mountDocuments(ctx context.Context, mux *http.ServeMux) error {
	blobs, err := storage.OpenBlobs(ctx, a.Config.BlobURL)
	if err != nil {
		return err
	}
	a.closers = append(a.closers, func() { _ = blobs.Close() })
	// The key is set and valid here: withEncryptionKey provides one and
	// auth.New has already refused one that does not decode.
	master, err := secretbox.DecodeKey(a.Config.EncryptionKey)
	if err != nil {
		return fmt.Errorf("HAULGRAPH_ENCRYPTION_KEY: %w", err)
	}
	a.Documents = &documents.Service{
		// A load or trip document changes its load: load.changed via the outbox.
		Store: &storage.Documents{DB: a.DB, LoadChanged: storage.DocumentLoadChanged(a.Config.Now)},
		Blobs: blobs,
		Links: documents.NewLinkSigner(secretbox.Derive(master, secretbox.LinksLabel), strings.TrimRight(a.Config.PublicURL, "/")),

		MaxBytes: a.Config.UploadMaxBytes,
		Now:      a.Config.Now,
	}
	mux.Handle(rest.DownloadPattern, rest.DocumentDownload(a.Documents))
	return nil
}

// uploadLimitsFromEnv reads HAULGRAPH_UPLOAD_MAX_BYTES_{LOAD,TRIP,DRIVER,CARRIER}
// (bytes; default documents.DefaultMaxBytes).
func uploadLimitsFromEnv() (map[domain.DocumentParentType]int64, error) {
	out := map[domain.DocumentParentType]int64{}
	for _, t := range []domain.DocumentParentType{domain.ParentLoad, domain.ParentTrip, domain.ParentDriver, domain.ParentCarrier} {
		k := "HAULGRAPH_UPLOAD_MAX_BYTES_" + strings.ToUpper(string(t))
		if v := os.Getenv(k); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("%s: a positive number of bytes is required", k)
			}
			out[t] = n
		}
	}
	return out, nil
}
