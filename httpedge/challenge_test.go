package httpedge_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/httpedge"
)

// The challenge is one rule for every transport: a reason or a scope never
// ends the quoted string early nor splits the header (no quote, backslash,
// CR or LF reaches it).
func TestChallenge(t *testing.T) {
	t.Parallel()
	presented := domain.WithAuthFailure(context.Background(), "x")
	for _, c := range []struct {
		name string
		ctx  context.Context
		err  *domain.Error
		want string
	}{
		{"no credentials", context.Background(), &domain.Error{Code: domain.CodeUnauthenticated, Message: "a valid bearer token is required"},
			`Bearer realm="haulgraph"`},
		{"bad token", presented, &domain.Error{Code: domain.CodeUnauthenticated, Message: "bad \"token\"\r\nX-Evil: 1 \\"},
			`Bearer error="invalid_token", error_description="bad 'token'  X-Evil: 1 /"`},
		{"missing scope", context.Background(), &domain.Error{Code: domain.CodeForbidden, Message: "no", Fields: map[string][]string{"scope": {"load:write", "a\"\r"}}},
			`Bearer error="insufficient_scope", scope="load:write a' "`},
		{"forbidden without scope", context.Background(), &domain.Error{Code: domain.CodeForbidden, Message: "no"}, ""},
		{"other", context.Background(), &domain.Error{Code: domain.CodeInvalid, Message: "no"}, ""},
	} {
		h := http.Header{}
		httpedge.Challenge(c.ctx, h, c.err)
		if got := h.Get("WWW-Authenticate"); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if strings.ContainsAny(h.Get("WWW-Authenticate"), "\r\n") {
			t.Errorf("%s: CR or LF in the header", c.name)
		}
	}
}
