// Command haulgraph is the one binary: serve, migrate, the operator commands
// (tenants, clients, keys, seed, webhooks) and the integrator's (listen,
// trigger); `haulgraph help` lists them.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/sync/errgroup"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/storage"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if code != 0 {
		os.Exit(code)
	}
}

func migrate(ctx context.Context) error {
	db, err := openMigrated(ctx)
	if err != nil {
		return err
	}
	db.Close()
	fmt.Println("migrations applied")
	return nil
}

// openMigrated opens DATABASE_URL and applies the migrations: what every
// command that works on the database directly starts with.
func openMigrated(ctx context.Context) (*storage.DB, error) {
	cfg, err := app.FromEnv()
	if err != nil {
		return nil, err
	}
	db, err := storage.Connect(ctx, cfg.Endpoints())
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// serveFlags defines the serve flags on fs.
func serveFlags(fs *flag.FlagSet) (seedDemo *bool) {
	return fs.Bool("seed-demo", false, "seed a demo tenant when the database is empty (make run); prints its steps on stderr")
}

func serve(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	wantDemo := serveFlags(fs)
	if err := fs.Parse(args); err != nil {
		return usageError(err.Error())
	}

	cfg, err := app.FromEnv()
	if err != nil {
		return err
	}
	// The demo (make run) says what it is doing, prefixed "serve: " as
	// "haulgraph: " starts an error line; a production server's stderr
	// carries only its JSON log.
	say := func(string, ...any) {}
	if *wantDemo {
		say = func(format string, a ...any) { fmt.Fprintf(os.Stderr, "serve: "+format+"\n", a...) }
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	say("database %s: applying migrations", redact(cfg.DatabaseURL))
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	if *wantDemo {
		say("seeding the demo tenant unless the database holds a tenant already")
		demo, err := seedDemo(ctx, a.DB)
		if err != nil && ctx.Err() != nil {
			// Stopped while seeding: seed.Run has removed the partial tenant,
			// so the next start seeds it whole.
			fmt.Println("HaulGraph stopped while seeding the demo tenant; nothing of it was kept")
			return nil
		}
		if err != nil {
			return err
		}
		if demo != nil {
			// A seeded demo without its client could never be used: finish
			// it even when a stop signal came meanwhile (one short write).
			if err := createDemoClient(context.WithoutCancel(ctx), a, demo); err != nil {
				return err
			}
		} else {
			say("the database holds tenants already: not seeding (make reset starts afresh)")
			savedDemoCredentials(cfg)
		}
	}

	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	ln = a.Listener(ln) // the per-address connection cap
	srv := a.NewServer()
	srv.RegisterOnShutdown(a.GoingAway) // WebSockets end with 1001; /readyz 503
	var adminLn net.Listener
	adminSrv := a.AdminServer()
	if cfg.AdminAddr != "" {
		if adminLn, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			ln.Close()
			return fmt.Errorf("admin listener (HAULGRAPH_ADMIN_ADDR): %w", err)
		}
		adminLn = a.AdminListener(adminLn)
	}
	// One owner for every goroutine: the listeners, the workers (relay,
	// webhook dispatch and delivery) and the shutdown. The pool closes (a.Close,
	// deferred) only after all of them have returned.
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return serveUntilClosed(srv, ln) })
	if adminLn != nil {
		g.Go(func() error { return serveUntilClosed(adminSrv, adminLn) })
	}
	g.Go(func() error { return a.Run(gctx) }) // stops claiming at once; attempts in flight get ShutdownTimeout
	g.Go(func() error {
		<-gctx.Done()
		a.GoingAway() // /readyz answers 503 from now on
		drain, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
		defer cancel()
		if err := srv.Shutdown(drain); err != nil {
			log.Warn("requests still running after the shutdown timeout were cut off", "timeout", cfg.ShutdownTimeout.String())
			_ = srv.Close()
		}
		// The admin listener last: probes and scrapes see the drain.
		if err := adminSrv.Shutdown(drain); err != nil {
			_ = adminSrv.Close()
		}
		return nil
	})
	if adminLn != nil {
		fmt.Printf("Admin listener on http://%s (metrics, pprof, healthz, readyz)\n", adminLn.Addr())
	}
	say("serving on http://%s; Ctrl-C stops", ln.Addr())
	fmt.Printf("HaulGraph serving on http://%s (database: %s)\n", ln.Addr(), redact(cfg.DatabaseURL))
	err = g.Wait()
	if err == nil {
		fmt.Println("HaulGraph stopped")
	}
	return err
}

// serveUntilClosed serves ln until the server is shut down.
func serveUntilClosed(srv *http.Server, ln net.Listener) error {
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// redact hides a password in a database URL before printing it.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable DATABASE_URL)"
	}
	return u.Redacted()
}
