package deploy

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestImageRunsAsShipped runs make image's binary as a container runtime
// does: from the image's own root (chroot), as its user 65532:65532, in
// its working directory, with the image's environment and only
// DATABASE_URL and HAULGRAPH_ENCRYPTION_KEY added. (The listen addresses
// are free ports of this host, which a runtime's network namespace makes
// unnecessary.) It seeds a tenant and makes a client with the image's
// CLI, then, against its `serve`: a token, a REST upload (stored under the
// image's data directory), a GraphQL upload (spooled in /tmp), both
// downloads and the statement export. Before, serve exited at once (mkdir
// .data in / was refused), and uploads needed a /tmp the image lacked (a
// volume of documents on another file system than /tmp:
// storage.TestBlobsWriteNothingOutsideTheirDirectory). It needs root for
// the chroot, as make test runs in CI, and fails without it.
func TestImageRunsAsShipped(t *testing.T) {
	t.Parallel()
	if os.Geteuid() != 0 {
		t.Fatal("the image runs in a chroot, which needs root: run make test as root (CI does)")
	}
	image, digest := shippedImage(t)
	root := t.TempDir()
	env := unpackImage(t, image, digest, root)

	dbURL := imageDatabase(t)
	key := make([]byte, 32)
	rand.Read(key)
	addr, admin := freeAddr(t), freeAddr(t)
	env = append(env, "DATABASE_URL="+dbURL, "HAULGRAPH_ENCRYPTION_KEY="+base64.StdEncoding.EncodeToString(key),
		"HAULGRAPH_ADDR="+addr, "HAULGRAPH_ADMIN_ADDR="+admin)
	run := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := inImage(root, env, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("haulgraph %s in the image: %v\n%s%s", strings.Join(args, " "), err, stdout.Bytes(), stderr.Bytes())
		}
		return stdout.String()
	}
	run("seed", "--tenant", "acme", "--scale", "1")
	var client struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.Unmarshal([]byte(run("clients", "create", "--tenant", "acme", "--name", "image",
		"--scopes", "load:read load:update trip:update driver:read", "--json")), &client); err != nil || client.ClientSecret == "" {
		t.Fatalf("clients create --json: %+v %v", client, err)
	}

	serve := inImage(root, env, "serve")
	logFile, err := os.Create(filepath.Join(t.TempDir(), "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	log := func() string { b, _ := os.ReadFile(logFile.Name()); return string(b) }
	serve.Stdout, serve.Stderr = logFile, logFile
	if err := serve.Start(); err != nil {
		t.Fatalf("serve in the image: %v", err)
	}
	var served error
	exited := make(chan struct{})
	go func() { served = serve.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		<-exited
		if served != nil {
			t.Errorf("serve in the image: %v\n%s", served, log())
		}
	})
	waitReady(t, "http://"+admin+"/readyz", exited, log)

	api := imageAPI{t: t, base: "http://" + addr}
	api.signIn(client.ClientID, client.ClientSecret)
	var loads struct {
		Loads struct {
			Edges []struct {
				Node struct {
					LoadNumber string
					Trips      []struct{ ID string }
				}
			}
		}
	}
	api.graphQL(`{ loads(first: 20) { edges { node { loadNumber trips { id } } } } }`, &loads)
	var load, trip string
	for _, e := range loads.Loads.Edges {
		if len(e.Node.Trips) > 0 {
			load, trip = e.Node.LoadNumber, e.Node.Trips[0].ID
			break
		}
	}
	if load == "" {
		t.Fatalf("no seeded load with a trip: %+v", loads)
	}

	// REST: the document goes to the image's data directory.
	pdf := []byte("%PDF-1.4\n%%EOF\n")
	var stored struct{ ID string }
	api.multipart("/api/p/v2.0/loads/"+load+"/document", map[string]string{"DocumentType": "Bill of Lading"}, "File", "bol.pdf", pdf, &stored)
	var docs struct {
		Load struct {
			Documents []struct{ ID, DownloadURL string }
		}
	}
	api.graphQL(`{ load(loadNumber: "`+load+`") { documents { id downloadUrl } } }`, &docs)
	if len(docs.Load.Documents) != 1 || docs.Load.Documents[0].ID != stored.ID {
		t.Fatalf("the load's documents %+v, want the one uploaded (%s)", docs, stored.ID)
	}
	if got := api.download(docs.Load.Documents[0].DownloadURL); !bytes.Equal(got, pdf) {
		t.Errorf("the REST upload downloads as %q, want %q", got, pdf)
	}
	if n := userFiles(t, filepath.Join(root, dataDir)); n == 0 {
		t.Errorf("nothing of the user's stored under /%s", dataDir)
	}

	// GraphQL: the multipart request's file is spooled in /tmp.
	jpeg := []byte("\xff\xd8\xff\xe0\x00\x10JFIF\x00")
	var up struct{ UploadTripDocument struct{ DownloadURL string } }
	api.multipart("/graphql", map[string]string{
		"operations": `{"query":"mutation($t: ID!, $f: Upload!) { uploadTripDocument(tripId: $t, documentType: \"POD\", file: $f) { downloadUrl } }","variables":{"t":"` + trip + `","f":null}}`,
		"map":        `{"0":["variables.f"]}`,
	}, "0", "pod.jpg", jpeg, graphQLData(&up))
	if got := api.download(up.UploadTripDocument.DownloadURL); !bytes.Equal(got, jpeg) {
		t.Errorf("the GraphQL upload downloads as %q, want %q", got, jpeg)
	}

	export := api.get("/api/p/v1/driver-settlement-statements/export?start=2000-01-01&end=2099-12-31", "text/csv")
	if lines := strings.Count(string(export), "\n"); !strings.HasPrefix(string(export), "StatementNumber,") || lines < 2 {
		t.Errorf("the export holds %d lines:\n%.300s", lines, export)
	}
}

// unpackImage writes the image's one layer under root, with its modes and
// owners, and returns the environment its config sets.
func unpackImage(t *testing.T, image []byte, digest, root string) []string {
	t.Helper()
	layout, _ := untar(t, image)
	blob := func(d string) []byte { return layout["blobs/sha256/"+strings.TrimPrefix(d, "sha256:")] }
	var manifest struct {
		Config struct{ Digest string }
		Layers []struct{ Digest string }
	}
	decode(t, blob(digest), &manifest)
	var config struct{ Config struct{ Env []string } }
	decode(t, blob(manifest.Config.Digest), &config)
	if len(manifest.Layers) != 1 {
		t.Fatalf("want one layer, got %d", len(manifest.Layers))
	}
	zr, err := gzip.NewReader(bytes.NewReader(blob(manifest.Layers[0].Digest)))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(root, filepath.FromSlash(h.Name))
		switch h.Typeflag {
		case tar.TypeDir:
			err = os.MkdirAll(path, 0o700)
		case tar.TypeReg:
			var b []byte
			if b, err = io.ReadAll(tr); err == nil {
				err = os.WriteFile(path, b, 0o600)
			}
		}
		if err == nil {
			err = os.Lchown(path, h.Uid, h.Gid)
		}
		if err == nil {
			// Chmod after chown, which clears the sticky and set-id bits.
			err = os.Chmod(path, os.FileMode(h.Mode).Perm()|unixMode(h.Mode))
		}
		if err != nil {
			t.Fatalf("unpack %s: %v", h.Name, err)
		}
	}
	// A runtime's root file system: everyone may enter it.
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	return config.Config.Env
}

// unixMode is the sticky and set-id bits of a tar mode as Go's.
func unixMode(m int64) os.FileMode {
	var fm os.FileMode
	if m&0o1000 != 0 {
		fm |= os.ModeSticky
	}
	if m&0o2000 != 0 {
		fm |= os.ModeSetgid
	}
	if m&0o4000 != 0 {
		fm |= os.ModeSetuid
	}
	return fm
}

// inImage is the image's entrypoint with args, rooted in root, as its user
// in its working directory, with only env.
func inImage(root string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command("/haulgraph", args...)
	cmd.Env = env
	cmd.Dir = "/"
	cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: root,
		Credential: &syscall.Credential{Uid: imageUser, Gid: imageUser}}
	return cmd
}

// userFiles counts the regular files under dir, failing on any the
// image's user does not own.
func userFiles(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if st, ok := info.Sys().(*syscall.Stat_t); !ok || st.Uid != imageUser {
			t.Errorf("%s is not the image user's: %+v", path, info.Sys())
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// waitReady waits, up to a minute (the migrations of a fresh database),
// for url to answer 200, failing at once should the server exit.
func waitReady(t *testing.T, url string, exited <-chan struct{}, log func() string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		if res, err := http.Get(url); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return
			}
		}
		select {
		case <-exited:
			t.Fatalf("serve in the image exited\n%s", log())
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer 200 within a minute\n%s", url, log())
		}
	}
}
