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
	"strings"
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

// TestImage: make image's OCI layout holds one manifest whose config runs
// the binary as a non-root user, whose layer holds only the static binary,
// the CA certificates and the passwd and group entries; a second build
// gives the same bytes. Cost: one CGO_ENABLED=0 build of cmd/haulgraph
// (compiled once, then cached) and a second, cached one.
func TestImage(t *testing.T) {
	t.Parallel()
	first, digest := buildImage(t, t.TempDir())
	second, again := buildImage(t, t.TempDir())
	if digest != again || !bytes.Equal(first, second) {
		t.Errorf("two builds differ: %s and %s (%d and %d bytes)", digest, again, len(first), len(second))
	}

	layout := untar(t, first)
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
	files := untar(t, raw)
	var names []string
	for name := range files {
		names = append(names, name)
	}
	slices.Sort(names)
	want := []string{"etc/", "etc/group", "etc/passwd", "etc/ssl/", "etc/ssl/certs/", "etc/ssl/certs/ca-certificates.crt", "haulgraph"}
	if !slices.Equal(names, want) {
		t.Errorf("the layer holds %q, want only %q", names, want)
	}
	uid := strings.SplitN(config.Config.User, ":", 2)[0]
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
// trailing slash), refusing any other kind of entry.
func untar(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	tr := tar.NewReader(bytes.NewReader(b))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		switch h.Typeflag {
		case tar.TypeDir:
			files[strings.TrimSuffix(h.Name, "/")+"/"] = nil
		case tar.TypeReg:
			body, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			files[h.Name] = body
		default:
			t.Fatalf("%s: an entry of type %c", h.Name, h.Typeflag)
		}
		if h.Uid != 0 || h.Gid != 0 {
			t.Errorf("%s is owned by %d:%d, want root", h.Name, h.Uid, h.Gid)
		}
	}
}

func decode(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
}
