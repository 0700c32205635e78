// Command subscribe follows load.changed events live and prints one JSON
// line per event. When the connection drops it reconnects and resumes
// after the last event it printed: nothing is missed, nothing repeats.
//
//	HG_BASE_URL=… HG_CLIENT_ID=… HG_CLIENT_SECRET=… go run ./examples/subscribe -loads LD-1000737
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "subscribe:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out, log io.Writer) error {
	fs := flag.NewFlagSet("subscribe", flag.ContinueOnError)
	base := fs.String("base-url", os.Getenv("HG_BASE_URL"), "the API's origin (HG_BASE_URL)")
	id := fs.String("client-id", os.Getenv("HG_CLIENT_ID"), "OAuth client id (HG_CLIENT_ID)")
	secret := fs.String("client-secret", os.Getenv("HG_CLIENT_SECRET"), "OAuth client secret (HG_CLIENT_SECRET)")
	loads := fs.String("loads", "", "comma-separated load numbers (empty: every load)")
	after := fs.String("after", "", "resume after this cursor or event id")
	count := fs.Int("count", 0, "stop after this many events (0: run until interrupted)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := haulgraph.New(haulgraph.WithBaseURL(*base), haulgraph.WithClientCredentials(*id, *secret),
		haulgraph.WithUserAgent("subscribe-example"))
	if err != nil {
		return err
	}
	params := &haulgraph.SubscribeParams{
		Type:  haulgraph.EventLoadChanged,
		After: *after,
		OnReconnect: func(err error, after string) {
			fmt.Fprintf(log, "reconnecting after %q: %v\n", after, err)
		},
	}
	if *loads != "" {
		params.LoadNumbers = strings.Split(*loads, ",")
	}
	enc := json.NewEncoder(out)
	n := 0
	for e, err := range c.Events.Subscribe(ctx, params) {
		if err != nil {
			return err
		}
		if err := enc.Encode(map[string]string{"id": e.ID, "cursor": e.Cursor, "loadNumber": e.Data.Load.LoadNumber,
			"status": string(e.Data.Load.Status), "rate": e.Data.Load.Rate.Amount.String(), "timestamp": e.Timestamp.Format(time.RFC3339Nano)}); err != nil {
			return err
		}
		if n++; *count > 0 && n >= *count {
			return nil
		}
	}
	return nil
}
