// Command ociimage writes HaulGraph's OCI image as an OCI image layout in a
// tar file, without a container daemon or a registry: one layer with the
// static binary, the CA certificates and a passwd/group naming the non-root
// user it runs as, nothing else. The same inputs give the same bytes: every
// time stamp is SOURCE_DATE_EPOCH, owners are fixed, entries sorted, and
// gzip writes no name or time.
//
//	ociimage -binary haulgraph -certs /etc/ssl/certs/ca-certificates.crt -version v0.29.0 -out bin/haulgraph-image.tar
//
// It prints the image's manifest digest. `skopeo copy oci-archive:FILE
// docker://REGISTRY/haulgraph:TAG` or `podman load -i FILE` take the file.
package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"
)

// User is the image's user: not root, and no user a host has by default.
const User = 65532

// Binary is where the binary lives in the image: its entrypoint.
const Binary = "/haulgraph"

func main() {
	binary := flag.String("binary", "", "the static haulgraph binary (CGO_ENABLED=0)")
	certs := flag.String("certs", "/etc/ssl/certs/ca-certificates.crt", "the CA certificate bundle")
	version := flag.String("version", "devel", "the release: the image's ref name and version label")
	revision := flag.String("revision", "", "the commit, for the revision label")
	arch := flag.String("arch", runtime.GOARCH, "the binary's architecture")
	out := flag.String("out", "", "the OCI layout tar to write")
	flag.Parse()
	if *binary == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: ociimage -binary FILE -out FILE [-certs FILE] [-version V] [-revision R]")
		os.Exit(2)
	}
	epoch, err := sourceDateEpoch()
	if err == nil {
		var digest string
		digest, err = build(*binary, *certs, *version, *revision, *arch, *out, epoch)
		fmt.Println(digest)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "ociimage:", err)
		os.Exit(1)
	}
}

// sourceDateEpoch is SOURCE_DATE_EPOCH (reproducible-builds.org), or the
// Unix epoch when unset.
func sourceDateEpoch() (time.Time, error) {
	v := os.Getenv("SOURCE_DATE_EPOCH")
	if v == "" {
		return time.Unix(0, 0).UTC(), nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: %v", v, err)
	}
	return time.Unix(n, 0).UTC(), nil
}

type file struct {
	name string
	mode int64
	body []byte // nil: a directory
}

func build(binary, certs, version, revision, arch, out string, epoch time.Time) (string, error) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return "", err
	}
	ca, err := os.ReadFile(certs)
	if err != nil {
		return "", err
	}
	u := strconv.Itoa(User)
	layer, err := tarball([]file{
		{name: "etc/", mode: 0o755},
		{name: "etc/group", mode: 0o644, body: []byte("root:x:0:\nnonroot:x:" + u + ":\n")},
		{name: "etc/passwd", mode: 0o644, body: []byte("root:x:0:0:root:/:/sbin/nologin\nnonroot:x:" + u + ":" + u + ":nonroot:/:/sbin/nologin\n")},
		{name: "etc/ssl/", mode: 0o755},
		{name: "etc/ssl/certs/", mode: 0o755},
		{name: "etc/ssl/certs/ca-certificates.crt", mode: 0o644, body: ca},
		{name: Binary[1:], mode: 0o755, body: bin},
	}, epoch)
	if err != nil {
		return "", err
	}
	var gz bytes.Buffer
	// No name, no time: reproducible. The default level: the best one saved
	// 0.2 % of the layer for 2.5 times the CPU.
	zw, err := gzip.NewWriterLevel(&gz, gzip.DefaultCompression)
	if err != nil {
		return "", err
	}
	if _, err := zw.Write(layer); err != nil {
		return "", err
	}
	if err := zw.Close(); err != nil {
		return "", err
	}
	labels := map[string]string{"org.opencontainers.image.title": "haulgraph", "org.opencontainers.image.version": version}
	if revision != "" {
		labels["org.opencontainers.image.revision"] = revision
	}
	config := mustJSON(map[string]any{
		"created":      epoch.Format(time.RFC3339),
		"architecture": arch,
		"os":           "linux",
		"config": map[string]any{
			"User":       u + ":" + u,
			"Entrypoint": []string{Binary},
			"Cmd":        []string{"serve"},
			// A container's loopback is its own: listen on every interface.
			"Env":          []string{"HAULGRAPH_ADDR=0.0.0.0:8080", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
			"ExposedPorts": map[string]any{"8080/tcp": map[string]any{}},
			"WorkingDir":   "/",
			"Labels":       labels,
		},
		"rootfs":  map[string]any{"type": "layers", "diff_ids": []string{digestOf(layer)}},
		"history": []any{map[string]any{"created": epoch.Format(time.RFC3339), "created_by": "ociimage " + version}},
	})
	manifest := mustJSON(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.manifest.v1+json",
		"config":        descriptor("application/vnd.oci.image.config.v1+json", config, nil),
		"layers":        []any{descriptor("application/vnd.oci.image.layer.v1.tar+gzip", gz.Bytes(), nil)},
		"annotations":   labels,
	})
	index := mustJSON(map[string]any{
		"schemaVersion": 2,
		"mediaType":     "application/vnd.oci.image.index.v1+json",
		"manifests": []any{descriptor("application/vnd.oci.image.manifest.v1+json", manifest,
			map[string]string{"org.opencontainers.image.ref.name": version})},
	})
	files := []file{
		{name: "blobs/", mode: 0o755},
		{name: "blobs/sha256/", mode: 0o755},
	}
	for _, blob := range sortedBlobs(config, gz.Bytes(), manifest) {
		files = append(files, file{name: "blobs/sha256/" + digestOf(blob)[len("sha256:"):], mode: 0o644, body: blob})
	}
	files = append(files, file{name: "index.json", mode: 0o644, body: index},
		file{name: "oci-layout", mode: 0o644, body: []byte(`{"imageLayoutVersion":"1.0.0"}`)})
	archive, err := tarball(files, epoch)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(out+".tmp", archive, 0o644); err != nil {
		return "", err
	}
	return digestOf(manifest), os.Rename(out+".tmp", out)
}

// tarball is files, in the order given, owned by root, stamped epoch.
func tarball(files []file, epoch time.Time) ([]byte, error) {
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	for _, f := range files {
		h := &tar.Header{Name: f.name, Mode: f.mode, ModTime: epoch, Format: tar.FormatPAX, Typeflag: tar.TypeReg, Size: int64(len(f.body))}
		if f.body == nil {
			h.Typeflag = tar.TypeDir
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.body); err != nil {
			return nil, err
		}
	}
	err := tw.Close()
	return b.Bytes(), err
}

func sortedBlobs(blobs ...[]byte) [][]byte {
	for i := range blobs {
		for j := i + 1; j < len(blobs); j++ {
			if digestOf(blobs[j]) < digestOf(blobs[i]) {
				blobs[i], blobs[j] = blobs[j], blobs[i]
			}
		}
	}
	return blobs
}

func descriptor(mediaType string, blob []byte, annotations map[string]string) map[string]any {
	d := map[string]any{"mediaType": mediaType, "digest": digestOf(blob), "size": len(blob)}
	if annotations != nil {
		d["annotations"] = annotations
	}
	return d
}

func digestOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// mustJSON marshals v: maps come out with sorted keys, so the same value
// gives the same bytes.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
