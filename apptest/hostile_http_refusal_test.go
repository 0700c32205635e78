package apptest_test

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/apptest"
	"github.com/haulgraph/haulgraph/domain"
)

// A refusal does not wait for the body it refuses: an anonymous request
// declaring a small body (under the 256 KiB Go's server would read to keep
// the connection) that sends one byte of it is answered 401 within the
// client's bounded wait, and the connection then closes after a second
// without more of it (app/linger.go), so a body trickled after it holds
// nothing.
func TestHostileHTTPSmallBodyRefusedUnread(t *testing.T) {
	srv := httpServer(t, app.HTTPLimits{})
	for _, rt := range []bodyRoute{
		{name: "graphql", path: "/graphql", contentType: "application/json", format: graphQLNoData},
		{name: "graphql stream", path: "/graphql/stream", contentType: "application/json", format: graphQLNoData},
		{name: "REST search", path: "/api/p/v1/users/search", contentType: "application/json", format: problemJSON},
		{name: "REST webhook", path: "/api/p/v1/webhooks", contentType: "application/json", format: problemJSON},
	} {
		for _, tok := range []string{"", "not-a-jwt"} {
			// Each case on a connection of its own, side by side: the
			// second each waits for its close passes once for all.
			t.Run(rt.name+" token "+tok, func(t *testing.T) {
				t.Parallel()
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
					return
				}
				want := ""
				if rt.format == graphQLNoData {
					want = string(domain.CodeUnauthenticated)
				}
				hostile{status: http.StatusUnauthorized, format: rt.format, want: want}.check(t, res, b)
				// The rest of the body is not awaited: the server closes once
				// a second passes without it.
				_, _ = io.WriteString(c, "x")
				_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
				if n, err := br.Read(make([]byte, 1)); err == nil || isTimeout(err) {
					t.Errorf("%s (token %q): the connection stays open after the refusal (%d bytes, %v)", rt.name, tok, n, err)
				}
				c.Close()
			})
		}
	}
}

// A refusal given before the body was read is not lost to a reset: the
// client that goes on sending (as curl does with a file) has the rest of its
// body read and dropped, then reads the whole answer (with its length) and
// the connection's close. The body is far larger than the sockets' buffers,
// so on a server that closes at once the client's write meets the reset.
func TestHostileHTTPRefusalLingersForTheBody(t *testing.T) {
	srv := httpServer(t, app.HTTPLimits{})
	token := srv.Token(t, apptest.NewTenant(t, srv, "linger"), domain.ScopeUserRead)
	const size = 20 << 20
	body := bytes.Repeat([]byte("a"), size)
	for _, rt := range []struct {
		name, token string
		status      int
	}{
		{"refused unread", "", http.StatusUnauthorized},
		{"refused past the 1 MiB body limit", token, http.StatusRequestEntityTooLarge},
	} {
		c := dialRaw(t, srv, "", false)
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		if _, err := io.WriteString(c, head("POST", "/graphql", rt.token, "application/json", size)); err != nil {
			t.Fatal(err)
		}
		if n, err := c.Write(body); err != nil {
			t.Errorf("%s: the body met %v after %d of %d bytes", rt.name, err, n, size)
			c.Close()
			continue
		}
		br := bufio.NewReader(c)
		res, b, err := readAnswer(c, br, time.Now().Add(30*time.Second))
		switch {
		case err != nil:
			t.Errorf("%s: no answer: %v", rt.name, err)
		case res.StatusCode != rt.status || res.ContentLength != int64(len(b)) || !res.Close:
			t.Errorf("%s: %d, length %d of %d bytes, close %v; want %d with its length, closing", rt.name, res.StatusCode, res.ContentLength, len(b), res.Close, rt.status)
		default:
			if n, err := br.Read(make([]byte, 1)); err != io.EOF {
				t.Errorf("%s: after the answer %d bytes, %v; want the close", rt.name, n, err)
			}
		}
		c.Close()
	}
}
