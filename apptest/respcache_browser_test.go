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
	path        string // with its query
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
		if strings.HasPrefix(r.URL.Path, "/api/") || r.URL.Path == "/graphql" {
			p.mu.Lock()
			p.seen = append(p.seen, exchange{r.URL.RequestURI(), r.Header.Get("If-None-Match"), res.StatusCode, res.Header.Get("ETag")})
			p.mu.Unlock()
		}
		return nil
	}
	rp.ServeHTTP(w, r)
}

// A real browser's HTTP cache revalidates a cached answer with its ETag,
// for a REST read and a GraphQL GET alike: the server answers 304 without a
// body (the page still reads the whole answer), a second instance answers
// the same tag 304 too, and after a write the answer is a 200 with a new tag
// and the new data.
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
	reads := []string{
		"/api/p/v1/loads/" + r.res.LoadWithTrips,
		gqlGet(`query($n: String!) { load(loadNumber: $n) { loadNumber orderNumber } }`, map[string]any{"n": r.res.LoadWithTrips}).path,
	}
	fetch := func(path string) (string, exchange) {
		t.Helper()
		p, _ := json.Marshal(path)
		// The page's fetch, with the default cache mode: the browser stores
		// the answer (private, no-cache) and revalidates it before each use.
		body, err := chromedp.Run(ctx, chromedp.Evaluate[string](`fetch(`+string(p)+`, {headers: {Authorization: `+string(tok)+`}}).
			then(r => r.status === 200 ? r.text() : "status " + r.status)`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		return body, px.last()
	}

	first := make([]string, len(reads))
	tags := make([]string, len(reads))
	for i, path := range reads {
		var ex exchange
		first[i], ex = fetch(path)
		if ex.path != path || ex.status != http.StatusOK || ex.etag == "" || ex.ifNoneMatch != "" {
			t.Fatalf("first fetch of %s: %+v", path, ex)
		}
		tags[i] = ex.etag
	}
	for _, srv := range []*apptest.Server{r.srv1, r.srv2} {
		px.use(srv)
		for i, path := range reads {
			again, got := fetch(path)
			if again != first[i] {
				t.Fatalf("%s revalidated on %s, the page read %.200q", path, srv.URL, again)
			}
			if got.path != path || got.ifNoneMatch != tags[i] || got.status != http.StatusNotModified || got.etag != tags[i] {
				t.Fatalf("revalidation of %s on %s: %+v, want If-None-Match %s answered 304", path, srv.URL, got, tags[i])
			}
		}
	}
	r.sql(t, "UPDATE loads SET order_number = order_number || '.' WHERE tenant_id = $1 AND load_number = $2", r.tn.ID, r.res.LoadWithTrips)
	for i, path := range reads {
		after, got := fetch(path)
		if after == first[i] {
			t.Fatalf("after a write the page read the old answer of %s", path)
		}
		if got.path != path || got.ifNoneMatch != tags[i] || got.status != http.StatusOK || got.etag == tags[i] || got.etag == "" {
			t.Fatalf("%s after a write: %+v", path, got)
		}
	}
}
