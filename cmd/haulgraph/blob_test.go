package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// TestServeRefusesBlobSchemeWithoutDriver: `haulgraph serve` built without
// the cloud drivers (the default build, as this test binary) does not start
// on an s3:// or gs:// HAULGRAPH_BLOB_URL: it exits 1 naming the build tag
// that carries the driver, before it serves anything.
func TestServeRefusesBlobSchemeWithoutDriver(t *testing.T) {
	t.Parallel()
	dbURL := dbtest.URL(t)
	for url, tag := range map[string]string{"s3://documents?region=us-east-1": "blob_s3", "gs://documents": "blob_gcs"} {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "HAULGRAPH_TEST_MAIN=1", "HAULGRAPH_TEST_ARGS=serve", "DATABASE_URL="+dbURL,
			"HAULGRAPH_ADDR="+apptest.FreeAddr(t), "HAULGRAPH_ADMIN_ADDR="+apptest.FreeAddr(t),
			"HAULGRAPH_ENCRYPTION_KEY="+testKey, "HAULGRAPH_BLOB_URL="+url)
		out, err := cmd.CombinedOutput()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 {
			t.Fatalf("%s: serve ended with %v, want exit 1:\n%s", url, err, out)
		}
		want := "haulgraph: HAULGRAPH_BLOB_URL: this binary has no driver for " + url[:strings.Index(url, "://")+3] +
			" buckets: build it with the " + tag + " tag (make build TAGS=" + tag
		if !strings.Contains(string(out), want) || strings.Contains(string(out), "HaulGraph serving on") {
			t.Errorf("%s: output does not name the missing driver's tag (want %q):\n%s", url, want, out)
		}
	}
}
