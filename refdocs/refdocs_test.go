package refdocs_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/refdocs"
)

// TestVendoredBundlesMatchTheirRecord: the embedded bundles are byte for
// byte the ones static/vendor/LICENSES.md records, and it records them all.
func TestVendoredBundlesMatchTheirRecord(t *testing.T) {
	t.Parallel()
	f, err := os.Open(filepath.Join("static", "vendor", "LICENSES.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	row := regexp.MustCompile(`^\| (\S+) \| .* \| ([0-9a-f]{64}) \|$`)
	seen := 0
	for sc := bufio.NewScanner(f); sc.Scan(); {
		m := row.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		seen++
		b, err := os.ReadFile(filepath.Join("static", "vendor", m[1]))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != m[2] {
			t.Errorf("%s: sha256 %x, recorded %s", m[1], sum, m[2])
		}
	}
	entries, _ := os.ReadDir(filepath.Join("static", "vendor"))
	if seen == 0 || seen != len(entries)-1 { // every file but LICENSES.md has its row
		t.Fatalf("LICENSES.md records %d files, the folder holds %d", seen, len(entries)-1)
	}
}

func get(t *testing.T, method, url string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

var nonceRE = regexp.MustCompile(`<meta property="csp-nonce" content="([A-Za-z0-9_-]{20,})">`)

// Both pages name a fresh style nonce in their CSP and in the meta element
// the renderers read; scripts stay own-origin only; every file a page
// references is served; no listings, no page under the file path.
func TestPagesAndPolicy(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(refdocs.Handler())
	t.Cleanup(srv.Close)
	nonces := map[string]bool{}
	for _, path := range []string{"/docs", "/docs/", "/docs/events", "/docs"} {
		res, body := get(t, http.MethodGet, srv.URL+path)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
		m := nonceRE.FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("GET %s: no nonce meta element", path)
		}
		if nonces[m[1]] {
			t.Fatalf("GET %s: nonce %s served twice", path, m[1])
		}
		nonces[m[1]] = true
		csp := res.Header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "style-src 'self' 'nonce-"+m[1]+"';") || !strings.Contains(csp, "script-src 'self';") ||
			!strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe") || strings.Contains(csp, "http") {
			t.Fatalf("GET %s: CSP %q", path, csp)
		}
		if res.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("GET %s: Cache-Control %q; a nonce must not be cached", path, res.Header.Get("Cache-Control"))
		}
		for _, ref := range regexp.MustCompile(`(?:src|href)="(/docs/static/[^"]+)"`).FindAllStringSubmatch(body, -1) {
			if r, _ := get(t, http.MethodGet, srv.URL+ref[1]); r.StatusCode != http.StatusOK {
				t.Errorf("GET %s (from %s): %d", ref[1], path, r.StatusCode)
			}
		}
	}
	// The bundle as served names no other host to load from.
	res, bundle := get(t, http.MethodGet, srv.URL+"/docs/static/vendor/redoc.standalone.js")
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") ||
		len(bundle) < 1<<20 || strings.Contains(bundle, "cdn.redoc.ly") {
		t.Errorf("GET redoc.standalone.js: %d %s, %d bytes, CDN logo left: %v", res.StatusCode, res.Header.Get("Content-Type"), len(bundle), strings.Contains(bundle, "cdn.redoc.ly"))
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "default-src 'none'") || strings.Contains(csp, "nonce") {
		t.Errorf("a file's CSP: %q", csp)
	}
	if head, body := get(t, http.MethodHead, srv.URL+"/docs"); head.StatusCode != http.StatusOK || body != "" {
		t.Errorf("HEAD /docs: %d %q", head.StatusCode, body)
	}
	for _, path := range []string{"/docs/static/", "/docs/static/vendor/", "/docs/static/index.html", "/docs/nowhere"} {
		if r, _ := get(t, http.MethodGet, srv.URL+path); r.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, r.StatusCode)
		}
	}
}
