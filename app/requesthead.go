package app

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/graph/transport"
	"github.com/haulgraph/haulgraph/rest"
)

// MaxHeaderBytes bounds a request's header fields (over it, 431).
const MaxHeaderBytes = 64 << 10

// MaxRequestHead is http.Server.MaxHeaderBytes: the request line and headers
// Go reads at all. It exceeds MaxHeaderBytes plus a GraphQL GET query string
// as long as a POST body (1 MiB), so that boundHead and the GraphQL transport
// answer those with 431 and 414 in the API's formats; beyond it Go answers a
// bare 431 itself.
const MaxRequestHead = 2 << 20

// boundHead refuses header fields over MaxHeaderBytes with 431, as a GraphQL
// error on /graphql and as problem+json elsewhere.
func boundHead(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := 0
		for k, vs := range r.Header {
			for _, v := range vs {
				n += len(k) + len(v) + len(": \r\n")
			}
		}
		if n <= MaxHeaderBytes {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		msg := fmt.Sprintf("the request's header fields exceed %d bytes", MaxHeaderBytes)
		if r.URL.Path == "/graphql" || strings.HasPrefix(r.URL.Path, "/graphql/") {
			transport.Refuse(w, r, http.StatusRequestHeaderFieldsTooLarge, &domain.Error{Code: domain.CodeTooLarge, Message: msg})
			return
		}
		rest.WriteProblem(w, r, http.StatusRequestHeaderFieldsTooLarge, msg, nil)
	})
}
