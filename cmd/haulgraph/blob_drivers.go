package main

// Production bucket schemes of HAULGRAPH_BLOB_URL (docs/architecture.md): s3:// and
// gs://, registered in the binary only so tests do not link the cloud SDKs.
// file:// is handled by storage.OpenBlobs itself. azblob:// is not registered:
// its SDK is not in this build's module set.
import (
	_ "gocloud.dev/blob/gcsblob"
	_ "gocloud.dev/blob/s3blob"
)
