// Command webhooks is a webhook receiver: it answers the verification
// challenge, checks every delivery's signature with the webhook's scheme
// (service, standard-webhooks or standard-webhooks-ed25519) and prints one
// line per verified event; a delivery that does not verify is refused (400).
//
//	HG_WEBHOOK_KEY=whsec_… go run ./examples/webhooks -addr 127.0.0.1:3000 -scheme service
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "webhooks:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("webhooks", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:3000", "where to listen")
	scheme := fs.String("scheme", "service", "the webhook's SignatureScheme")
	key := fs.String("key", os.Getenv("HG_WEBHOOK_KEY"), "whsec_ secret or whpk_ public key (HG_WEBHOOK_KEY)")
	count := fs.Int("count", 0, "stop after this many verified events (0: run until interrupted)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	v := haulgraph.WebhookVerifier{Scheme: haulgraph.SignatureScheme(*scheme), Key: *key}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	seen := map[string]bool{}
	mux := http.NewServeMux()
	mux.Handle("POST /hooks", v.Handler(func(r *http.Request, e *haulgraph.Event) error {
		mu.Lock()
		defer mu.Unlock()
		if seen[e.ID] { // retries and redeliveries carry the same id
			return nil
		}
		seen[e.ID] = true
		fmt.Fprintf(out, "verified %s %s %s\n", e.Type, e.ID, e.Data.Load.LoadNumber)
		if *count > 0 && len(seen) >= *count {
			cancel()
		}
		return nil
	}))
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(out, "listening on http://%s/hooks\n", ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	<-ctx.Done()
	// Answer the requests under way, then drop whatever connection is
	// still open (a sender's idle keep-alive).
	shutdown, done := context.WithTimeout(context.Background(), 2*time.Second)
	defer done()
	if err := srv.Shutdown(shutdown); err != nil {
		srv.Close()
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
