// Package graphiql serves GraphiQL for /graphql from files embedded in the
// binary: GraphiQL and React (vendored, see static/vendor/LICENSES.md) and a
// small sign-in bar of our own. Nothing comes from another host, so it
// works offline, and a strict CSP keeps it that way.
package graphiql

import (
	"embed"
	"html/template"
	"io/fs"
	"net/http"
	"strings"
)

//go:embed static
var static embed.FS

// AssetsPath is where the page's scripts and styles are served.
const AssetsPath = "/graphiql/"

// csp: own origin only (WebSockets included); GraphiQL sets styles inline.
const csp = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"

// Options fill the page: the audience to ask tokens for, and, in the demo,
// the demo client's credentials to pre-fill (empty outside the demo).
type Options struct {
	Audience               string
	ClientID, ClientSecret string
}

var page = template.Must(template.ParseFS(static, "static/index.html"))

// Page serves the GraphiQL page (GET and HEAD). opts is read per request:
// the demo client may be created after the server starts.
func Page(opts func() Options) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b strings.Builder
		if err := page.Execute(&b, opts()); err != nil {
			http.Error(w, "the page could not be built", http.StatusInternalServerError)
			return
		}
		headers(w)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write([]byte(b.String()))
	})
}

// Assets serves the page's files under AssetsPath.
func Assets() http.Handler {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree is fixed at build time
	}
	files := http.StripPrefix(AssetsPath, http.FileServerFS(sub))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, AssetsPath)
		if name == "" || strings.HasSuffix(name, "/") || name == "index.html" {
			http.NotFound(w, r) // the page is /graphql; no listings
			return
		}
		headers(w)
		w.Header().Set("Cache-Control", "public, max-age=3600")
		files.ServeHTTP(w, r)
	})
}

func headers(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
}
