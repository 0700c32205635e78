package httpedge_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/httpedge"
	"github.com/haulgraph/haulgraph/metrics"
	"github.com/haulgraph/haulgraph/ratelimit"
)

// A request admitted by its tenant's bucket alone (a conditional GET
// answered 304) spends none of its client's, and its log line names its
// client as every other authenticated request's does.
func TestAdmitTenantSpendsTheTenantBucketAndNamesTheClient(t *testing.T) {
	t.Parallel()
	var buf syncBuffer
	log := slog.New(slog.NewJSONHandler(&buf, nil))
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	rl := &httpedge.RateLimits{
		Limiter: ratelimit.New(ratelimit.NewMemStore(100), func() time.Time { return now }),
		Client:  ratelimit.Limit{Rate: 1, Burst: 1},
		Tenant:  ratelimit.Limit{Rate: 1, Burst: 3},
		Log:     log,
		Refuse: func(w http.ResponseWriter, _ *http.Request, err *domain.Error) {
			http.Error(w, err.Message, http.StatusTooManyRequests)
		},
	}
	p := &domain.Principal{TenantID: uuid.New(), ClientID: "client-42"}
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r = r.WithContext(domain.WithPrincipal(r.Context(), p)); rl.AdmitTenant(w, r) {
			w.WriteHeader(http.StatusNotModified)
		}
	})
	srv := httptest.NewServer(httpedge.NewObserver(log, metrics.New()).Wrap(inner))
	defer srv.Close()
	// The client's burst is 1: three answers are the tenant's 3, a fourth
	// is refused.
	for i, want := range []int{http.StatusNotModified, http.StatusNotModified, http.StatusNotModified, http.StatusTooManyRequests} {
		res, err := http.Get(srv.URL + "/things")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("request %d: status %d, want %d", i+1, res.StatusCode, want)
		}
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 4 {
		t.Fatalf("%d log lines, want 4: %s", len(lines), buf.String())
	}
	for _, line := range lines {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log %q: %v", line, err)
		}
		if rec["client_id"] != "client-42" {
			t.Errorf("log line %s: client_id %v, want client-42", line, rec["client_id"])
		}
	}
}
