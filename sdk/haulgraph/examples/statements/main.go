// Command statements signs in with client credentials and reads the
// settled statements of a date range page by page, summing their net
// income exactly. A refused request (429) is retried after Retry-After.
//
//	HG_BASE_URL=http://127.0.0.1:8080 HG_CLIENT_ID=hgc_… HG_CLIENT_SECRET=hgcs_… \
//	  go run ./examples/statements -from 2025-01-01 -to 2025-01-31
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "statements:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("statements", flag.ContinueOnError)
	base := fs.String("base-url", os.Getenv("HG_BASE_URL"), "the API's origin (HG_BASE_URL)")
	id := fs.String("client-id", os.Getenv("HG_CLIENT_ID"), "OAuth client id (HG_CLIENT_ID)")
	secret := fs.String("client-secret", os.Getenv("HG_CLIENT_SECRET"), "OAuth client secret (HG_CLIENT_SECRET)")
	from := fs.String("from", "2025-01-01", "first statement date")
	to := fs.String("to", "2025-01-31", "last statement date, inclusive")
	pageSize := fs.Int("page-size", 10, "statements per page (1-100)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	c, err := haulgraph.New(
		haulgraph.WithBaseURL(*base),
		haulgraph.WithClientCredentials(*id, *secret),
		haulgraph.WithUserAgent("statements-example"),
		haulgraph.WithMaxRetries(4),
		haulgraph.WithOnRetry(func(r haulgraph.RetryInfo) {
			fmt.Fprintf(out, "retry %d after %s: %v\n", r.Attempt, r.Wait, r.Err)
		}),
	)
	if err != nil {
		return err
	}
	tok, err := c.Token(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "token: %s, expires %s\n", tok.TokenType, tok.Expiry.UTC().Format(time.RFC3339))

	params := &haulgraph.StatementListParams{PageSize: *pageSize}
	if params.From, err = time.Parse(time.DateOnly, *from); err != nil {
		return err
	}
	if params.To, err = time.Parse(time.DateOnly, *to); err != nil {
		return err
	}
	net := haulgraph.Decimal("0")
	count := 0
	for {
		page, err := c.Statements.ListPage(ctx, params)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "page %d: %d statements of %d (attempts: %d)\n", params.Page, len(page.Items), page.Total, page.LastResponse.Attempts)
		for _, s := range page.Items {
			net = net.Add(s.Totals.NetIncome.Value())
			count++
			fmt.Fprintf(out, "  %d %s %s net %s\n", s.Number, s.StatementDate, s.DriverName(), s.Totals.NetIncome.Value())
		}
		if page.Next == "" {
			break
		}
		params.Page++
	}
	fmt.Fprintf(out, "statements: %d, net income: %s\n", count, net.StringFixed(2))
	return nil
}
