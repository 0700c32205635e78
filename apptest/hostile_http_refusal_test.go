package apptest_test

import (
	"bufio"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/domain"
)

// A refusal does not wait for the body it refuses: an anonymous request
// declaring a small body (under the 256 KiB Go's server would read to keep
// the connection) that sends one byte of it is answered 401 within the
// client's bounded wait, and the connection then closes, so a body
// trickled after it holds nothing.
func TestHostileHTTPSmallBodyRefusedUnread(t *testing.T) {
	srv := httpServer(t, app.HTTPLimits{})
	for _, rt := range []bodyRoute{
		{name: "graphql", path: "/graphql", contentType: "application/json", format: graphQLNoData},
		{name: "graphql stream", path: "/graphql/stream", contentType: "application/json", format: graphQLNoData},
		{name: "REST search", path: "/api/p/v1/users/search", contentType: "application/json", format: problemJSON},
		{name: "REST webhook", path: "/api/p/v1/webhooks", contentType: "application/json", format: problemJSON},
	} {
		for _, tok := range []string{"", "not-a-jwt"} {
			c := dialRaw(t, srv, "", false)
			if _, err := io.WriteString(c, head("POST", rt.path, tok, rt.contentType, 16000)+"{"); err != nil {
				t.Fatal(err)
			}
			br := bufio.NewReader(c)
			// The client waits 3 s, less than the body timeout (10 s).
			res, b, err := readAnswer(c, br, time.Now().Add(3*time.Second))
			if err != nil {
				t.Errorf("%s (token %q): no answer: %v", rt.name, tok, err)
				c.Close()
				continue
			}
			want := ""
			if rt.format == graphQLNoData {
				want = string(domain.CodeUnauthenticated)
			}
			hostile{status: http.StatusUnauthorized, format: rt.format, want: want}.check(t, res, b)
			// The rest of the body is not awaited: the server closes.
			_, _ = io.WriteString(c, "x")
			_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
			if n, err := br.Read(make([]byte, 1)); err == nil || isTimeout(err) {
				t.Errorf("%s (token %q): the connection stays open after the refusal (%d bytes, %v)", rt.name, tok, n, err)
			}
			c.Close()
		}
	}
}
