package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"runtime"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
)

// serverStats is what the parent reads from the measured server process.
type serverStats struct {
	Subscribers int64  `json:"subscribers"`
	Groups      int    `json:"groups"`
	Executions  int64  `json:"executions"`
	Evictions   int64  `json:"evictions"`
	Writes      int64  `json:"writes"`    // WebSocket write(2) calls of messages
	Frames      int64  `json:"frames"`    // messages they carried
	InPassing   int64  `json:"inPassing"` // writes a group made itself
	CutShort    int64  `json:"cutShort"`  // of those, taken only in part
	HeapInuse   uint64 `json:"heapInuse"`
	StackInuse  uint64 `json:"stackInuse"`
	Goroutines  int    `json:"goroutines"`
}

// ready is the line the server process prints once it serves.
type ready struct {
	URL, ClientID, Secret, Subsidiary string
}

// serve runs one real HaulGraph instance (the process the benchmark
// measures) with a fresh tenant and client, plus GET /bench/stats.
func serve(ctx context.Context) error {
	cfg, err := app.FromEnv()
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	cfg.Addr = ln.Addr().String()
	cfg.PublicURL = "http://" + cfg.Addr
	// One client drives the whole burst: the per-client request rate limit
	// would measure itself, not the bus.
	cfg.ClientRateLimit, cfg.TenantRateLimit = 1e6, 1e6
	cfg.GraphQLCostBudget, cfg.GraphQLCostRefill = 1e9, 1e9
	// ...and every socket comes from one address: the per-address and
	// per-client connection caps are lifted (the server and its listener are
	// otherwise the ones serve runs, with their read and write bounds).
	cfg.HTTP.MaxConnsPerAddr = -1
	cfg.WebsocketMaxPerAddress, cfg.WebsocketMaxPerClient = 1<<30, 1<<30
	a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		return err
	}
	defer a.Close()
	tenant, sub := uuid.New(), uuid.New()
	err = a.DB.InSystem(ctx, func(ctx context.Context, tx bun.Tx) error {
		if _, err := tx.ExecContext(ctx, "INSERT INTO tenants (id, slug, name) VALUES (?, ?, 'Bench')", tenant, "bench-"+tenant.String()[:8]); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'Bench Main')", sub, tenant)
		return err
	})
	if err != nil {
		return err
	}
	client, secret, err := a.Auth.CreateClient(ctx, tenant, auth.ClientSpec{Name: "bench",
		Scopes: []domain.Scope{domain.ScopeLoadRead, domain.ScopeLoadCreate, domain.ScopeLoadUpdate}})
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/", a.Handler())
	mux.HandleFunc("GET /debug/pprof/heap", pprof.Index)
	mux.HandleFunc("GET /debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("GET /bench/stats", func(w http.ResponseWriter, _ *http.Request) {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		_ = json.NewEncoder(w).Encode(serverStats{Subscribers: a.GraphQL.Live.Members(), Groups: a.GraphQL.Live.Groups(),
			Executions: a.GraphQL.Live.Executions(), Evictions: a.GraphQL.Live.CutOff() + a.Events.Hub.Evictions(),
			Writes: a.GraphQL.Live.Writes(), Frames: a.GraphQL.Live.Frames(),
			InPassing: a.GraphQL.Live.InPassing(), CutShort: a.GraphQL.Live.CutShort(),
			HeapInuse: m.HeapInuse, StackInuse: m.StackInuse, Goroutines: runtime.NumGoroutine()})
	})
	go func() { _ = a.Run(ctx) }()
	srv := a.NewServer()
	srv.Handler = mux
	go func() { <-ctx.Done(); _ = srv.Close() }()
	line, _ := json.Marshal(ready{URL: cfg.PublicURL, ClientID: client.ClientID, Secret: secret, Subsidiary: sub.String()})
	fmt.Fprintln(os.Stdout, string(line))
	if err := srv.Serve(a.Listener(ln)); err != http.ErrServerClosed {
		return err
	}
	return nil
}
