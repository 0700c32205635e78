// Command haulgraph is the one binary: serve, migrate, seed, clients, webhooks.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/storage"
)

const usage = `usage: haulgraph <command> [flags]

commands:
  serve     run the API (migrates first; --seed-demo seeds an empty database)
  migrate   apply database migrations
  tenants   create and list tenants (tenants create --slug SLUG --name NAME)
  subsidiaries  create and list a tenant's subsidiaries (--tenant SLUG)
  clients   manage API client credentials (create, list, revoke, edit)
  keys      rotate the token signing key (keys rotate)
  seed      create a tenant filled with deterministic demo data (--tenant SLUG [--scale N])
  webhooks  manage webhooks (haulgraph webhooks --help)
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(ctx, os.Args[2:])
	case "migrate":
		err = migrate(ctx)
	case "clients":
		err = clientsCmd(ctx, os.Args[2:])
	case "tenants", "subsidiaries":
		err = tenantsCmd(ctx, os.Args[1], os.Args[2:])
	case "keys":
		err = keysCmd(ctx, os.Args[2:])
	case "seed":
		err = seedCommand(ctx, os.Args[2:])
	case "webhooks":
		err = webhooksCmd(ctx, os.Args[2:], os.Stdout)
	case "-h", "--help", "help":
		fmt.Print(usage)
		return
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "haulgraph:", err)
		os.Exit(1)
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
	db, err := storage.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	if err := db.Migrate(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func serve(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	wantDemo := fs.Bool("seed-demo", false, "seed a demo tenant when the database is empty")
	_ = fs.Parse(args)

	cfg, err := app.FromEnv()
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
	a, err := app.New(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer a.Close()
	if *wantDemo {
		demo, err := seedDemo(ctx, a.DB)
		if err != nil {
			return err
		}
		if demo != nil {
			if err := createDemoClient(ctx, a, demo); err != nil {
				return err
			}
		} else {
			savedDemoCredentials(cfg)
		}
	}

	srv := &http.Server{Addr: cfg.Addr, Handler: a.Handler(), ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: app.MaxRequestHead}
	errc := make(chan error, 2)
	go func() { errc <- a.Run(ctx) }()
	go func() { errc <- srv.ListenAndServe() }()
	fmt.Printf("HaulGraph serving on http://%s (database: %s)\n", cfg.Addr, redact(cfg.DatabaseURL))
	select {
	case <-ctx.Done():
	case err := <-errc:
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutdown)
}

// redact hides a password in a database URL before printing it.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable DATABASE_URL)"
	}
	return u.Redacted()
}
