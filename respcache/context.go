package respcache

import (
	"context"

	"github.com/haulgraph/haulgraph/domain"
)

// request is one cacheable request's state between the middleware's two
// halves (before and after the limits).
type request struct {
	key   Key
	reads domain.Resources
	read  Read
	ok    bool // read holds the versions
	begun bool // the versions were read (or failed) before the limits
}

type requestCtxKey struct{}

func withRequest(ctx context.Context, req *request) context.Context {
	return context.WithValue(ctx, requestCtxKey{}, req)
}

func requestFrom(ctx context.Context) *request {
	req, _ := ctx.Value(requestCtxKey{}).(*request)
	return req
}
