package apptest_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/haulgraph/haulgraph/apptest"
)

// exchange is one request the browser sent and what the server answered.
type exchange struct {
	ifNoneMatch string
	status      int
	etag        string
}

// switchProxy passes the browser's requests to one instance or the other
// and records each exchange.
type switchProxy struct {
	mu       sync.Mutex
	upstream *apptest.Server
	seen     []exchange
}

func (p *switchProxy) use(srv *apptest.Server) { p.mu.Lock(); p.upstream = srv; p.mu.Unlock() }

func (p *switchProxy) last() exchange {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.seen[len(p.seen)-1]
}

func (p *switchProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	target, _ := url.Parse(p.upstream.URL)
	p.mu.Unlock()
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.ModifyResponse = func(res *http.Response) error {
		// Only the page's fetches: the navigation and the favicon the
		// browser asks for after it (whenever it likes) are not exchanges.
		if strings.HasPrefix(res.Request.URL.Path, "/api/") {
			p.mu.Lock()
			p.seen = append(p.seen, exchange{r.Header.Get("If-None-Match"), res.StatusCode, res.Header.Get("ETag")})
			p.mu.Unlock()
		}
		return nil
	}
	rp.ServeHTTP(w, r)
}

// A real browser's HTTP cache revalidates a cached answer with its ETag:
// the server answers 304 without a body (the page still reads the whole
// answer), a second instance answers the same tag 304 too, and after a write
// the answer is a 200 with a new tag and the new data.
func TestResponseCacheBrowserRevalidates(t *testing.T) {
	t.Parallel()
	r := newCacheRig(t, nil)
	px := &switchProxy{upstream: r.srv1}
	front := httptest.NewServer(px)
	t.Cleanup(front.Close)

	bctx := apptest.Browser(t, 800, 600)
	ctx, cancel := context.WithTimeout(bctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(front.URL+"/healthz")); err != nil {
		t.Fatal(err)
	}
	tok, _ := json.Marshal("Bearer " + r.token)
	path, _ := json.Marshal("/api/p/v1/loads/" + r.res.LoadWithTrips)
	fetch := func() string {
		t.Helper()
		// The page's fetch, with the default cache mode: the browser stores
		// the answer (private, no-cache) and revalidates it before each use.
		body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(`+string(path)+`, {headers: {Authorization: `+string(tok)+`}}).
			then(r => r.status === 200 ? r.text() : "status " + r.status)`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		return body
	}

	first := fetch()
	ex := px.last()
	if ex.status != http.StatusOK || ex.etag == "" || ex.ifNoneMatch != "" {
		t.Fatalf("first fetch: %+v", ex)
	}
	for _, srv := range []*apptest.Server{r.srv1, r.srv2} {
		px.use(srv)
		if again := fetch(); again != first {
			t.Fatalf("revalidated on %s, the page read %.200q", srv.URL, again)
		}
		if got := px.last(); got.ifNoneMatch != ex.etag || got.status != http.StatusNotModified || got.etag != ex.etag {
			t.Fatalf("revalidation on %s: %+v, want If-None-Match %s answered 304", srv.URL, got, ex.etag)
		}
	}
	r.sql(t, "UPDATE loads SET order_number = order_number || '.' WHERE tenant_id = $1 AND load_number = $2", r.tn.ID, r.res.LoadWithTrips)
	if after := fetch(); after == first {
		t.Fatal("after a write the page read the old answer")
	}
	if got := px.last(); got.ifNoneMatch != ex.etag || got.status != http.StatusOK || got.etag == ex.etag || got.etag == "" {
		t.Fatalf("after a write: %+v", got)
	}
}
