// Command loads creates a load with its stops and rate, moves it to
// Covered and reads it back, printing each answer's request id and the
// exact rate.
//
//	HG_BASE_URL=… HG_CLIENT_ID=… HG_CLIENT_SECRET=… go run ./examples/loads -load LD-9001 -subsidiary <id>
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loads:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("loads", flag.ContinueOnError)
	base := fs.String("base-url", os.Getenv("HG_BASE_URL"), "the API's origin (HG_BASE_URL)")
	id := fs.String("client-id", os.Getenv("HG_CLIENT_ID"), "OAuth client id (HG_CLIENT_ID)")
	secret := fs.String("client-secret", os.Getenv("HG_CLIENT_SECRET"), "OAuth client secret (HG_CLIENT_SECRET)")
	number := fs.String("load", "LD-9001", "the new load's number")
	subsidiary := fs.String("subsidiary", "", "the subsidiary's id")
	rate := fs.String("rate", "1850.25", "the rate, in USD")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := haulgraph.New(haulgraph.WithBaseURL(*base), haulgraph.WithClientCredentials(*id, *secret),
		haulgraph.WithUserAgent("loads-example"))
	if err != nil {
		return err
	}
	amount, err := haulgraph.ParseDecimal(*rate)
	if err != nil {
		return err
	}
	load, err := c.Loads.Create(ctx, &haulgraph.LoadParams{
		LoadNumber:   *number,
		SubsidiaryID: *subsidiary,
		Rate:         haulgraph.NewMoney(amount, haulgraph.USD),
		Stops: []haulgraph.StopParams{
			{Type: haulgraph.StopPickup, Name: "Dock 4"},
			{Type: haulgraph.StopDelivery, Name: "Warehouse 12"},
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created %s: %s, rate %s (request %s)\n", load.LoadNumber, load.Status, load.Rate, load.LastResponse.RequestID)

	load, err = c.Loads.ChangeStatus(ctx, *number, &haulgraph.LoadStatusParams{Status: haulgraph.LoadStatusCovered})
	var apiErr *haulgraph.Error
	if errors.As(err, &apiErr) {
		return fmt.Errorf("refused: %s (code %s, request %s)", apiErr.Detail, apiErr.Code, apiErr.RequestID)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s is %s\n", load.LoadNumber, load.Status)

	load, err = c.Loads.Get(ctx, *number)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "read %s: %s, rate %s, %d stops (attempts %d, rate limit %d/%d)\n", load.LoadNumber, load.Status, load.Rate,
		len(load.Stops), load.LastResponse.Attempts, load.LastResponse.RateLimit.Remaining, load.LastResponse.RateLimit.Limit)
	return nil
}
