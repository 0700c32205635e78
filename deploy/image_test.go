package deploy

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"debug/elf"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// buildImage runs scripts/build-image.sh (what make image runs) into dir
// and returns the tar and the digest it printed.
func buildImage(t *testing.T, dir string) ([]byte, string) {
	t.Helper()
	out := filepath.Join(dir, "image.tar")
	cmd := exec.Command("../scripts/build-image.sh", out)
	cmd.Env = append(os.Environ(), "VERSION=v0.0.0-imagetest", "SOURCE_DATE_EPOCH=1700000000", "TAGS=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	digest, err := cmd.Output()
	if err != nil {
		t.Fatalf("build-image.sh: %v\n%s", err, stderr.Bytes())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b, strings.TrimSpace(string(digest))
}

// The image's user and its data directory (in the layer, without the
// leading slash), as deploy/cmd/ociimage makes them.
const (
	imageUser = 65532
	dataDir   = "var/lib/haulgraph"
)

// shipped is the first build of the image, which TestImage compares with
// a second and TestImageRunsAsShipped runs.
var shipped struct {
	once   sync.Once
	tar    []byte
	digest string
}

func shippedImage(t *testing.T) ([]byte, string) {
	t.Helper()
	shipped.once.Do(func() {
		dir, err := os.MkdirTemp("", "haulgraph-image-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		shipped.tar, shipped.digest = buildImage(t, dir)
	})
	if shipped.tar == nil {
		t.Fatal("the image's build failed (see the first test that built it)")
	}
	return shipped.tar, shipped.digest
}

// TestImage: make image's OCI layout holds one manifest whose config runs
// the binary as a non-root user with its documents under its data
// directory, whose layer holds only the static binary, the CA
// certificates, the passwd and group entries, /tmp and the data directory;
// a second build gives the same bytes. Cost: one CGO_ENABLED=0 build of
// cmd/haulgraph (compiled once, then cached) and a second, cached one.
func TestImage(t *testing.T) {
	t.Parallel()
	first, digest := shippedImage(t)
	second, again := buildImage(t, t.TempDir())
	if digest != again || !bytes.Equal(first, second) {
		t.Errorf("two builds differ: %s and %s (%d and %d bytes)", digest, again, len(first), len(second))
	}

	layout, layoutHeaders := untar(t, first)
	for name, h := range layoutHeaders {
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("the layout's %s is owned by %d:%d, want root", name, h.Uid, h.Gid)
		}
	}
	if string(layout["oci-layout"]) != `{"imageLayoutVersion":"1.0.0"}` {
		t.Errorf("oci-layout: %s", layout["oci-layout"])
	}
	blob := func(digest string) []byte {
		t.Helper()
		b, ok := layout["blobs/sha256/"+strings.TrimPrefix(digest, "sha256:")]
		if sum := sha256.Sum256(b); !ok || "sha256:"+hex.EncodeToString(sum[:]) != digest {
			t.Fatalf("blob %s missing or not its digest", digest)
		}
		return b
	}
	type desc struct {
		MediaType   string
		Digest      string
		Annotations map[string]string
	}
	var index struct{ Manifests []desc }
	decode(t, layout["index.json"], &index)
	if len(index.Manifests) != 1 || index.Manifests[0].Digest != digest ||
		index.Manifests[0].Annotations["org.opencontainers.image.ref.name"] != "v0.0.0-imagetest" {
		t.Fatalf("index %+v: want one manifest %s named v0.0.0-imagetest", index, digest)
	}
	var manifest struct {
		Config desc
		Layers []desc
	}
	decode(t, blob(digest), &manifest)
	var config struct {
		OS, Architecture string
		Config           struct {
			User       string
			Entrypoint []string
			Cmd        []string
			Env        []string
			Volumes    map[string]struct{}
		}
		RootFS struct {
			DiffIDs []string `json:"diff_ids"`
		}
	}
	decode(t, blob(manifest.Config.Digest), &config)
	if u := config.Config.User; u == "" || u == "0" || strings.HasPrefix(u, "0:") || strings.HasPrefix(u, "root") {
		t.Errorf("the image runs as %q: want a non-root user", u)
	}
	if !slices.Equal(config.Config.Entrypoint, []string{"/haulgraph"}) || !slices.Equal(config.Config.Cmd, []string{"serve"}) {
		t.Errorf("entrypoint %q cmd %q, want /haulgraph serve", config.Config.Entrypoint, config.Config.Cmd)
	}
	if len(manifest.Layers) != 1 || len(config.RootFS.DiffIDs) != 1 {
		t.Fatalf("want one layer, got %d (%d diff ids)", len(manifest.Layers), len(config.RootFS.DiffIDs))
	}
	zr, err := gzip.NewReader(bytes.NewReader(blob(manifest.Layers[0].Digest)))
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256(raw); "sha256:"+hex.EncodeToString(sum[:]) != config.RootFS.DiffIDs[0] {
		t.Error("the layer's diff id is not the digest of its contents")
	}
	files, headers := untar(t, raw)
	var names []string
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	want := []string{"etc/", "etc/group", "etc/passwd", "etc/ssl/", "etc/ssl/certs/", "etc/ssl/certs/ca-certificates.crt", "haulgraph",
		"tmp/", "var/", "var/lib/", "var/lib/haulgraph/"}
	if !slices.Equal(names, want) {
		t.Errorf("the layer holds %q, want only %q", names, want)
	}
	uid := strings.SplitN(config.Config.User, ":", 2)[0]
	// Root's, but for the user's data directory, where the documents go
	// (a runtime copies it, owner and all, into a new volume).
	for name, h := range headers {
		owner := 0
		if name == dataDir+"/" {
			owner = imageUser
		}
		if h.Uid != owner || h.Gid != owner {
			t.Errorf("%s is owned by %d:%d, want %d", name, h.Uid, h.Gid, owner)
		}
	}
	if strconv.Itoa(imageUser) != uid {
		t.Errorf("the image runs as %s, want %d", config.Config.User, imageUser)
	}
	if h := headers["tmp/"]; h == nil || h.Mode != 0o1777 {
		t.Errorf("/tmp: %+v, want mode 1777", h)
	}
	if h := headers[dataDir+"/"]; h == nil || h.Mode != 0o700 {
		t.Errorf("%s: %+v, want mode 0700", dataDir, h)
	}
	if _, ok := config.Config.Volumes["/"+dataDir]; !ok || !slices.Contains(config.Config.Env, "HAULGRAPH_BLOB_URL=file:///"+dataDir+"/blobs") {
		t.Errorf("volumes %v, env %q: want the documents in the volume %s", config.Config.Volumes, config.Config.Env, dataDir)
	}
	if !strings.Contains(string(files["etc/passwd"]), ":x:"+uid+":") {
		t.Errorf("/etc/passwd names no user %s:\n%s", uid, files["etc/passwd"])
	}
	if !bytes.Contains(files["etc/ssl/certs/ca-certificates.crt"], []byte("BEGIN CERTIFICATE")) {
		t.Error("the CA bundle holds no certificate")
	}

	// The binary is static (no interpreter, no shared library: scratch has
	// no libc) and is the release it was built as.
	bin := filepath.Join(t.TempDir(), "haulgraph")
	if err := os.WriteFile(bin, files["haulgraph"], 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	libs, _ := f.ImportedLibraries()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Error("the binary needs a dynamic loader")
		}
	}
	f.Close()
	if len(libs) != 0 {
		t.Errorf("the binary needs %v", libs)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil || !strings.HasPrefix(string(out), "haulgraph v0.0.0-imagetest ") {
		t.Errorf("haulgraph version: %q %v", out, err)
	}
}

// untar reads a tar's regular files and directories (named with a
// trailing slash), with their headers, refusing any other kind of entry.
func untar(t *testing.T, b []byte) (map[string][]byte, map[string]*tar.Header) {
	t.Helper()
	files, headers := map[string][]byte{}, map[string]*tar.Header{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files, headers
		}
		if err != nil {
			t.Fatal(err)
		}
		name := h.Name
		switch h.Typeflag {
		case tar.TypeDir:
			name = strings.TrimSuffix(h.Name, "/") + "/"
			files[name] = nil
		case tar.TypeReg:
			body, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[name] = body
		default:
			t.Fatalf("%s: an entry of type %c", h.Name, h.Typeflag)
		}
		headers[name] = h
	}
}

func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}
