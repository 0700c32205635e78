package app

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"golang.org/x/sync/errgroup"
)

// DefaultShutdownDrain is how long a stopping instance goes on serving
// with /readyz at 503 when HAULGRAPH_SHUTDOWN_DRAIN is unset: several
// health-check intervals of a load balancer.
const DefaultShutdownDrain = 10 * time.Second

// Serve serves srv (NewServer) on ln and the admin handler on adminLn (nil:
// none), and runs the workers (Run), until ctx ends or one of them fails.
// Then it stops, in this order:
//
//  1. the drain (a stop only, not a failure): /readyz answers 503 at once,
//     every answer carries Connection: close, and the instance goes on
//     serving for Config.ShutdownDrain, so that a load balancer's health
//     check takes it out before its listener closes;
//  2. WebSockets and event streams end (1001: clients resume with after:),
//     the workers stop (webhook leases are recorded or handed back);
//  3. srv shuts down, requests in flight bounded by Config.ShutdownTimeout;
//     the admin listener last, so that probes see the stop.
//
// serve's SIGTERM and apptest's Stop both end ctx: one path.
func (a *App) Serve(ctx context.Context, srv *http.Server, ln, adminLn net.Listener) error {
	srv.RegisterOnShutdown(a.GoingAway)
	adminSrv := a.AdminServer() // bounded as the public listener is
	// One owner for every goroutine: the listeners, the workers and the stop.
	// The workers have their own context: they go on through the drain (its
	// subscribers still get events, its deliveries still go out).
	g, gctx := errgroup.WithContext(context.WithoutCancel(ctx))
	workers, stopWorkers := context.WithCancel(gctx)
	defer stopWorkers()
	g.Go(func() error { return serveUntilClosed(srv, ln) })
	if adminLn != nil {
		g.Go(func() error { return serveUntilClosed(adminSrv, a.AdminListener(adminLn)) })
	}
	g.Go(func() error { return a.Run(workers) })
	g.Go(func() error {
		select {
		case <-ctx.Done():
			a.drain(gctx)
		case <-gctx.Done(): // a listener or a worker failed: no drain
		}
		a.GoingAway()
		stopWorkers() // claiming stops at once; attempts in flight get ShutdownTimeout
		shut, cancel := context.WithTimeout(context.Background(), a.Config.ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(shut); err != nil {
			a.Log.Warn("requests still running after the shutdown timeout were cut off", "timeout", a.Config.ShutdownTimeout.String())
			_ = srv.Close()
		}
		if err := adminSrv.Shutdown(shut); err != nil {
			_ = adminSrv.Close()
		}
		return nil
	})
	return g.Wait()
}

// serveUntilClosed serves ln until the server is shut down.
func serveUntilClosed(srv *http.Server, ln net.Listener) error {
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// drain turns /readyz to 503 and Connection: close on, then waits
// Config.ShutdownDrain (on Config.DrainTimer) unless ctx ends first.
func (a *App) drain(ctx context.Context) {
	a.drainingOnce.Do(func() { close(a.draining) })
	d := a.Config.ShutdownDrain
	if d <= 0 {
		return
	}
	a.Log.Info("draining: /readyz answers 503 while requests are still served", "drain", d.String())
	var done <-chan time.Time
	if a.Config.DrainTimer != nil {
		done = a.Config.DrainTimer(d)
	} else {
		t := time.NewTimer(d)
		defer t.Stop()
		done = t.C
	}
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// Draining reports whether a stop has begun (/readyz answers 503).
func (a *App) Draining() bool {
	select {
	case <-a.draining:
		return true
	default:
		return false
	}
}

// closeWhileDraining answers every request that starts during the drain
// with Connection: close, so that a keep-alive connection (a balancer's
// included) ends after its current request instead of at the shutdown. A
// WebSocket upgrade is left alone: its answer is 101 with Connection:
// Upgrade, and the socket ends with 1001 after the drain.
func (a *App) closeWhileDraining(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if a.Draining() && r.Header.Get("Upgrade") == "" {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}
