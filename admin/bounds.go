package admin

import (
	"net"
	"net/http"
	"strings"
)

// MaxBody bounds a request body on the admin listener: only pprof's symbol
// lookup takes one (a list of addresses), and 64 KiB holds thousands.
// pprof.Symbol answered a 39 MB body with 177 MB.
const MaxBody = 64 << 10

// Bounded refuses what the admin listener has no use for before next sees
// it: a Host that names a host other than localhost or one of names (the
// configured admin address's host), 421, so that a page an operator's
// browser opens cannot rebind its own name to the listener. An address
// (a Kubernetes probe's pod IP, a scraper's target) or no Host at all (an
// HTTP/1.0 health check) names nothing to rebind and is served; a body over MaxBody,
// 413; a query string over MaxBody, 414.
func Bounded(next http.Handler, names ...string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !allowedHost(r.Host, names) {
			w.Header().Set("Connection", "close")
			http.Error(w, "misdirected request: the admin listener answers only to its own address", http.StatusMisdirectedRequest)
			return
		}
		if r.ContentLength > MaxBody {
			w.Header().Set("Connection", "close")
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
			return
		}
		if len(r.URL.RawQuery) > MaxBody {
			http.Error(w, "query string too long", http.StatusRequestURITooLong)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
		next.ServeHTTP(w, r)
	})
}

// allowedHost reports whether host (a Host header, with or without port)
// is empty, an IP address, localhost, or one of names.
func allowedHost(host string, names []string) bool {
	h := host
	if hh, _, err := net.SplitHostPort(host); err == nil {
		h = hh
	}
	h = strings.TrimSuffix(strings.Trim(h, "[]"), ".")
	if h == "" || strings.EqualFold(h, "localhost") || net.ParseIP(h) != nil {
		return true
	}
	for _, n := range names {
		if n != "" && strings.EqualFold(h, n) {
			return true
		}
	}
	return false
}
