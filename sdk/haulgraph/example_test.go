package haulgraph_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/haulgraph/haulgraph/sdk/haulgraph"
)

// A client signs in with an OAuth client of your tenant.
func ExampleNew() {
	client, err := haulgraph.New(
		haulgraph.WithBaseURL("https://api.example.com"),
		// An OAuth client of your tenant (keep the secret out of the code).
		haulgraph.WithClientCredentials("hgc_…", "hgcs_…"),
		haulgraph.WithUserAgent("my-erp-sync"),
	)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(client.BaseURL())
	// Output: https://api.example.com
}

// Each call takes a params struct and returns the resource with the
// answer's metadata.
func ExampleLoadService_ChangeStatus() {
	ctx := context.Background()
	client, _ := haulgraph.New(haulgraph.WithBaseURL("https://api.example.com"), haulgraph.WithClientCredentials("hgc_…", "hgcs_…"))
	load, err := client.Loads.ChangeStatus(ctx, "LD-1001", &haulgraph.LoadStatusParams{Status: haulgraph.LoadStatusDelivered})
	var apiErr *haulgraph.Error
	switch {
	case errors.As(err, &apiErr):
		log.Printf("refused: %d %s (request %s)", apiErr.StatusCode, apiErr.Code, apiErr.RequestID)
	case err != nil:
		log.Print(err)
	default:
		log.Printf("%s is %s (request %s, %d attempts)", load.LoadNumber, load.Status, load.LastResponse.RequestID, load.LastResponse.Attempts)
	}
}

// List reads the next page as the loop reaches it; amounts add up exactly.
func ExampleStatementService_List() {
	ctx := context.Background()
	client, _ := haulgraph.New(haulgraph.WithBaseURL("https://api.example.com"), haulgraph.WithClientCredentials("hgc_…", "hgcs_…"))
	params := &haulgraph.StatementListParams{
		From: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC),
		To:   time.Date(2025, 1, 31, 0, 0, 0, 0, time.UTC),
	}
	net := haulgraph.Decimal("0")
	for s, err := range client.Statements.List(ctx, params) {
		if err != nil {
			log.Fatal(err)
		}
		net = net.Add(s.Totals.NetIncome.Value())
	}
	log.Printf("net income: %s", net.StringFixed(2))
}

// Amounts are exact decimals: read them as decimals, never as floats.
func ExampleDecimal() {
	a := haulgraph.NewMoney("0.10", haulgraph.USD)
	b := haulgraph.MustDecimal("0.20")
	fmt.Println(a.Amount.Add(b), a.Currency, a.Amount.Add(b).StringFixed(1))
	// Output: 0.30 USD 0.3
}

// Subscribe follows events live and resumes after a dropped connection
// where it left off.
func ExampleEventService_Subscribe() {
	ctx := context.Background()
	client, _ := haulgraph.New(haulgraph.WithBaseURL("https://api.example.com"), haulgraph.WithClientCredentials("hgc_…", "hgcs_…"))
	for e, err := range client.Events.Subscribe(ctx, &haulgraph.SubscribeParams{
		Type:        haulgraph.EventLoadStatusChanged,
		LoadNumbers: []string{"LD-1001"},
	}) {
		if err != nil {
			log.Fatal(err)
		}
		log.Printf("%s %s at %s: %s", e.ID, e.Type, e.Timestamp, e.Data.Load.Status)
	}
}

// A webhook receiver: the verifier answers the verification challenge,
// refuses a delivery whose signature does not verify, and decodes the
// others into the same Event the listing and subscriptions give.
func ExampleWebhookVerifier_Handler() {
	v := haulgraph.WebhookVerifier{Scheme: haulgraph.SchemeService, Key: os.Getenv("HG_WEBHOOK_KEY")}
	http.Handle("POST /hooks", v.Handler(func(r *http.Request, e *haulgraph.Event) error {
		log.Printf("%s %s: %s", e.Type, e.ID, e.Data.Load.LoadNumber)
		return nil // an error answers 500, and the delivery is retried
	}))
}
