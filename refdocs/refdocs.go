// Package refdocs serves the API reference site: /docs renders the OpenAPI
// document (routes, and in its webhooks section the event catalogue),
// /docs/events the AsyncAPI document, both with Redoc (which reads AsyncAPI
// 3 too; AsyncAPI's own browser renderer compiles schemas with new
// Function when it loads, which would need script-src 'unsafe-eval').
// Everything is embedded (static/vendor/LICENSES.md says where the bundle
// comes from); the pages reach their own origin only.
package refdocs

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/base64"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
	"time"
)

//go:embed static
var static embed.FS

// Path is where the site is served; the events page is Path+"/events".
const Path = "/docs"

// The documents the pages render, as the server serves them.
const (
	OpenAPIURL  = "/api/p/openapi.json"
	AsyncAPIURL = "/api/p/asyncapi.json"
)

var pages = template.Must(template.ParseFS(static, "static/index.html", "static/events.html"))

// csp: scripts from the own origin only. Redoc inserts <style> elements at
// run time (styled-components): they carry the page's nonce, which it
// reads from <meta property="csp-nonce">.
func csp(nonce string) string {
	return "default-src 'none'; script-src 'self'; style-src 'self' 'nonce-" + nonce + "'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
}

// assetCSP: a file opened on its own runs nothing.
const assetCSP = "default-src 'none'; frame-ancestors 'none'"

// Handler serves the site under Path: "/docs" and "/docs/" the reference,
// "/docs/events" the events page, "/docs/static/..." their files.
func Handler() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.StripPrefix(Path+"/static/", http.FileServerFS(sub))
	redoc := redocBundle(sub)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch p := r.URL.Path; {
		case p == Path || p == Path+"/":
			page(w, r, "index.html")
		case p == Path+"/events":
			page(w, r, "events.html")
		case p == Path+"/static/vendor/redoc.standalone.js":
			headers(w, assetCSP)
			w.Header().Set("Cache-Control", "public, max-age=3600")
			http.ServeContent(w, r, "redoc.standalone.js", time.Time{}, bytes.NewReader(redoc))
		case strings.HasPrefix(p, Path+"/static/") && !strings.HasSuffix(p, "/") &&
			!strings.HasSuffix(p, ".html"):
			headers(w, assetCSP)
			w.Header().Set("Cache-Control", "public, max-age=3600")
			files.ServeHTTP(w, r)
		default:
			http.NotFound(w, r)
		}
	})
}

// redocBundle is the vendored Redoc bundle as served: its sidebar footer
// shows Redocly's logo from their CDN, which the CSP would refuse (a
// reported violation). It is pointed at an empty data: URL instead, on
// which the footer hides the image. The file itself stays as packed.
func redocBundle(sub fs.FS) []byte {
	b, err := fs.ReadFile(sub, "vendor/redoc.standalone.js")
	if err != nil {
		panic(err)
	}
	for _, logo := range []string{"https://cdn.redoc.ly/redoc/logo-mini-full.svg", "https://cdn.redoc.ly/redoc/logo-mini.svg"} {
		if !bytes.Contains(b, []byte(logo)) {
			panic("refdocs: the Redoc bundle no longer names " + logo) // see LICENSES.md on upgrading
		}
		b = bytes.ReplaceAll(b, []byte(logo), []byte("data:,"))
	}
	return b
}

func page(w http.ResponseWriter, r *http.Request, name string) {
	var raw [18]byte
	_, _ = rand.Read(raw[:])
	nonce := base64.RawURLEncoding.EncodeToString(raw[:])
	var b strings.Builder
	if err := pages.ExecuteTemplate(&b, name, struct{ Nonce, OpenAPI, AsyncAPI string }{nonce, OpenAPIURL, AsyncAPIURL}); err != nil {
		http.Error(w, "the page could not be built", http.StatusInternalServerError)
		return
	}
	headers(w, csp(nonce))
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store") // the nonce is per response
	if r.Method == http.MethodHead {
		return
	}
	_, _ = w.Write([]byte(b.String()))
}

func headers(w http.ResponseWriter, policy string) {
	h := w.Header()
	h.Set("Content-Security-Policy", policy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
}
