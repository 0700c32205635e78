package respcache_test

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/httpedge"
	"github.com/haulgraph/haulgraph/ratelimit"
	"github.com/haulgraph/haulgraph/respcache"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/storage/pgcluster"
)

var users = domain.ResourceSet(domain.ResourceUsers)

func principal(tenant uuid.UUID) *domain.Principal {
	return &domain.Principal{TenantID: tenant, ClientID: "c", Scopes: []domain.Scope{domain.ScopeUserRead}}
}

// get answers key for p through the cache; computed reports whether
// compute ran (a miss).
func get(t *testing.T, c *respcache.Cache, p *domain.Principal, key respcache.Key, body []byte) (computed bool) {
	t.Helper()
	rd, ok := c.Begin(domain.WithPrincipal(context.Background(), p), key, users)
	if !ok {
		t.Fatal("the versions could not be read")
	}
	c.Get(rd, func() (*respcache.Answer, bool) {
		computed = true
		return &respcache.Answer{Body: body, Status: http.StatusOK}, true
	})
	return computed
}

// 10,000 distinct answers of one tenant stay within its share and evict
// none of another tenant's hot answers.
func TestTenantShare(t *testing.T) {
	t.Parallel()
	c := respcache.New(4<<20, &storage.ResponseVersions{DB: dbtest.New(t)})
	busy, quiet := principal(uuid.New()), principal(uuid.New())
	hot := make([]respcache.Key, 20)
	for i := range hot {
		hot[i] = respcache.NewKey(quiet, "hot", strconv.Itoa(i))
		get(t, c, quiet, hot[i], bytes.Repeat([]byte("q"), 8<<10))
		get(t, c, quiet, hot[i], nil) // hot: asked again
	}
	body := bytes.Repeat([]byte("b"), 2<<10)
	for i := range 10_000 {
		get(t, c, busy, respcache.NewKey(busy, "flood", strconv.Itoa(i)), body)
		if i%1000 == 0 {
			for _, k := range hot {
				get(t, c, quiet, k, nil)
			}
		}
	}
	if got, share := c.TenantBytes(busy.TenantID), uint64(c.Share()); got > share || got < share/2 {
		t.Errorf("the busy tenant holds %d bytes, its share is %d", got, share)
	}
	if c.Stats().Evictions == 0 {
		t.Error("10,000 answers of 2 KiB fit in a 1 MiB share: nothing was evicted")
	}
	for i, k := range hot {
		if get(t, c, quiet, k, nil) {
			t.Errorf("the quiet tenant's hot answer %d was evicted", i)
		}
	}
}

// Concurrent misses of one key are computed once: every request that
// missed while the first computes receives that answer.
func TestConcurrentMissesComputeOnce(t *testing.T) {
	t.Parallel()
	c := respcache.New(1<<20, &storage.ResponseVersions{DB: dbtest.New(t)})
	p := principal(uuid.New())
	key := respcache.NewKey(p, "dashboard")
	const requests = 16
	var computed atomic.Int32
	release := make(chan struct{})
	answers := make([][]byte, requests)
	var wg sync.WaitGroup
	for i := range requests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rd, ok := c.Begin(domain.WithPrincipal(context.Background(), p), key, users)
			if !ok {
				t.Error("the versions could not be read")
				return
			}
			a, _ := c.Get(rd, func() (*respcache.Answer, bool) {
				n := computed.Add(1)
				<-release
				return &respcache.Answer{Body: []byte(strconv.Itoa(int(n))), Status: http.StatusOK}, true
			})
			answers[i] = a.Body
		}()
	}
	// Every request has missed (and waits on the one computing) before
	// the computation ends.
	for deadline := time.Now().Add(30 * time.Second); c.Stats().Misses < requests; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			close(release)
			wg.Wait()
			t.Fatalf("%d of %d requests missed", c.Stats().Misses, requests)
		}
	}
	close(release)
	wg.Wait()
	if n := computed.Load(); n != 1 {
		t.Errorf("%d concurrent misses of one key computed it %d times", requests, n)
	}
	for i, b := range answers {
		if string(b) != "1" {
			t.Errorf("request %d got %q, not the one computed answer", i, b)
		}
	}
}

// With the database stopped, the versions cannot be read: the request is
// answered as an uncached one would be, never from memory.
func TestNoHitWithoutTheDatabase(t *testing.T) {
	t.Parallel()
	cluster := pgcluster.Start(t, pgcluster.Options{})
	db, err := storage.Open(context.Background(), cluster.Primary().URL(""))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	c := respcache.New(1<<20, &storage.ResponseVersions{DB: db})
	limits := &httpedge.RateLimits{
		Limiter: ratelimit.New(ratelimit.NewMemStore(100), nil),
		Client:  ratelimit.PerSecond(1e6), Tenant: ratelimit.PerSecond(1e6), Log: slog.New(slog.DiscardHandler),
		Refuse: func(w http.ResponseWriter, _ *http.Request, _ *domain.Error) {
			w.WriteHeader(http.StatusServiceUnavailable)
		},
	}
	computed := 0
	next := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		computed++
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"n":` + strconv.Itoa(computed) + `}`))
	})
	h := c.HTTP(func(*http.Request) (domain.Resources, bool) { return users, true }, limits)(next)
	p := principal(uuid.New())
	ask := func() *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/api/p/v1/users", nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req.WithContext(domain.WithPrincipal(req.Context(), p)))
		return rec
	}
	ask()
	if rec := ask(); rec.Header().Get("Cache-Status") != "haulgraph; hit" || computed != 1 {
		t.Fatalf("warm: %q, computed %d times", rec.Header().Get("Cache-Status"), computed)
	}
	cluster.Primary().Stop()
	rec := ask()
	if rec.Header().Get("Cache-Status") != "haulgraph; fwd=bypass" || computed != 2 || rec.Body.String() != `{"n":2}` {
		t.Errorf("database stopped: %q, computed %d times, %s", rec.Header().Get("Cache-Status"), computed, rec.Body)
	}
	if c.Stats().Unchecked != 1 {
		t.Errorf("unchecked: %d", c.Stats().Unchecked)
	}
}
