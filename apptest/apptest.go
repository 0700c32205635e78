// Package apptest starts real HaulGraph instances for end-to-end tests: a
// fresh migrated database and the full handler on a real 127.0.0.1 listener.
package apptest

import (
	"context"
	"io"
	stdlog "log"
	"log/slog"
	"net"
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
	stop     func() error
}

// Stop stops the instance as SIGTERM stops serve (app.Serve: the drain,
// WebSockets 1001, the workers, the shutdown) and releases its database;
// it returns when all of that is done, with the workers' error if they
// failed. The test's end calls it too; a second call only waits.
func (s *Server) Stop() error { return s.stop() }

// EmittedChecked is how many event payloads the instance wrote, by channel
// (eventschema.Channel*), each checked against the published schemas.
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
	// Addr and AdminAddr are where the instance listens (a restarted one
	// takes its predecessor's); empty is a free port of 127.0.0.1.
	Addr, AdminAddr string
}

// Start runs one instance until the test ends.
func Start(t testing.TB, opts Options) *Server {
	t.Helper()
	url := opts.DatabaseURL
	if url == "" {
		url = dbtest.URL(t)
	}
	ln, adminLn := listen(t, opts.Addr), listen(t, opts.AdminAddr)
	cfg := app.Config{
		DatabaseURL:          url,
		Addr:                 ln.Addr().String(),
		Audience:             app.DefaultAudience,
		PublicURL:            "http://" + ln.Addr().String(),
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
		ln.Close()
		adminLn.Close()
		t.Fatalf("apptest: %v", err)
	}
	// The real server and listener: the tests meet the bounds serve has.
	srv := a.NewServer()
	if opts.Log != nil {
		// The server's own complaints (a response written twice) land in
		// the same log the test reads.
		srv.ErrorLog = stdlog.New(opts.Log, "", 0)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- a.Serve(ctx, srv, a.Listener(ln), adminLn) }()
	stop := sync.OnceValue(func() error {
		cancel()
		err := <-served
		a.Close()
		checked.End()
		return err
	})
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("apptest: the instance's workers failed: %v", err)
		}
	})
	return &Server{App: a, URL: "http://" + ln.Addr().String(), AdminURL: "http://" + adminLn.Addr().String(),
		emitted: checked, clients: &sync.Map{}, stop: stop}
}

// listen listens on addr, or on a free port of 127.0.0.1.
func listen(t testing.TB, addr string) net.Listener {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("apptest: %v", err)
	}
	return ln
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }
