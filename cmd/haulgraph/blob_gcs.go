//go:build blob_gcs

package main

// gs:// buckets for HAULGRAPH_BLOB_URL, only in a binary built with the
// blob_gcs tag (make build TAGS=blob_gcs): the Google Cloud SDK would
// otherwise more than double a cold build (docs/operating.md, "Document storage").
import _ "gocloud.dev/blob/gcsblob"
