//go:build blob_s3

package main

// s3:// buckets for HAULGRAPH_BLOB_URL, only in a binary built with the
// blob_s3 tag (make build TAGS=blob_s3): the AWS SDK would otherwise more than
// double a cold build (docs/operating.md, "Document storage").
import _ "gocloud.dev/blob/s3blob"
