// Package apptest starts real HaulGraph instances for end-to-end tests: a
// fresh migrated database and the full handler on a real 127.0.0.1 listener.
package apptest

import (
	"context"
	"io"
	stdlog "log"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/contract/emitted"
	"github.com/haulgraph/haulgraph/storage/dbtest"
)

// Server is one running instance.
type Server struct {
	*app.App
	URL string
	// AdminURL is the instance's admin listener (metrics, pprof, probes).
	AdminURL string
	emitted  *emitted.Check
	clients  *sync.Map // Token's clients, by tenant and scopes
}

// EmittedChecked is how many event payloads the instance wrote, by channel
// (domain.Channel*), each checked against the published schemas.
func (s *Server) EmittedChecked() map[string]int { return s.emitted.Checked() }

// Options tune a test instance.
type Options struct {
	// DatabaseURL shares a database between instances; empty makes a new one.
	DatabaseURL string
	// ReplicaURLs are read replicas of DatabaseURL (storage/pgcluster).
	ReplicaURLs []string
	// Configure edits the configuration before the instance starts.
	Configure func(*app.Config)
	// Log receives the instance's log (text format); nil discards it
	// unless the test runs verbosely.
	Log io.Writer
}

// Start runs one instance until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	url := opts.DatabaseURL
	if url == "" {
		url = dbtest.URL(t)
	}
	srv := httptest.NewUnstartedServer(nil)
	cfg := app.Config{
		DatabaseURL:          url,
		Addr:                 srv.Listener.Addr().String(),
		Audience:             app.DefaultAudience,
		PublicURL:            "http://" + srv.Listener.Addr().String(),
		BlobURL:              "file://" + t.TempDir(),
		DevAllowHTTPWebhooks: true,
		EncryptionKey:        "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=",
	}
	cfg.TokenTTL = 3600e9
	cfg.ReplicaURLs = opts.ReplicaURLs
	// Generous rate limits so that tests of other areas are not throttled;
	// the rate-limit tests set their own.
	cfg.ClientRateLimit, cfg.TenantRateLimit = 10000, 10000
	cfg.TokenRateLimit, cfg.TokenRateBurst = 10000, 10000
	cfg.TokenAddressRateLimit, cfg.TokenAddressRateBurst = 10000, 10000
	cfg.TokenGlobalRateLimit, cfg.TokenGlobalRateBurst = 10000, 10000
	if opts.Configure != nil {
		opts.Configure(&cfg)
	}
	checked := checkEmitted(t, &cfg)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	switch {
	case opts.Log != nil:
		log = slog.New(slog.NewTextHandler(opts.Log, nil))
	case testing.Verbose():
		log = slog.New(slog.NewTextHandler(testWriter{t}, nil))
	}
	a, err := app.New(context.Background(), cfg, log)
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- a.Run(ctx) }()
	// The real server and listener: the tests meet the bounds serve has.
	srv.Config = a.NewServer()
	srv.Listener = a.Listener(srv.Listener)
	if opts.Log != nil {
		// The server's own complaints (a response written twice) land in
		// the same log the test reads.
		srv.Config.ErrorLog = stdlog.New(opts.Log, "", 0)
	}
	srv.Start()
	adminSrv := httptest.NewServer(a.AdminHandler())
	t.Cleanup(func() {
		srv.Close()
		adminSrv.Close()
		cancel()
		if err := <-ran; err != nil {
			t.Errorf("apptest: the instance's workers failed: %v", err)
		}
		a.Close()
		checked.End()
	})
	return &Server{App: a, URL: srv.URL, AdminURL: adminSrv.URL, emitted: checked, clients: &sync.Map{}}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
