// Package haulgraph is the Go client of the HaulGraph API: loads, trips,
// settlement statements, the event log and its live subscriptions,
// webhooks and their signatures, documents, invoices, trailers, locations
// and users. It needs the standard library only.
//
// A Client signs in with an OAuth client of your tenant and groups the API
// by resource, each method taking a context and a params struct:
//
//	client, err := haulgraph.New(
//		haulgraph.WithBaseURL("https://api.example.com"),
//		haulgraph.WithClientCredentials(clientID, clientSecret),
//	)
//	load, err := client.Loads.ChangeStatus(ctx, "LD-1001",
//		&haulgraph.LoadStatusParams{Status: haulgraph.LoadStatusDelivered})
//	for s, err := range client.Statements.List(ctx, &haulgraph.StatementListParams{From: from, To: to}) { ... }
//
// # Amounts
//
// Amounts are exact decimals; read them as decimals, never as floats. A
// Money holds the amount as the exact decimal text the API sent (Decimal,
// with Add, Cmp, Rat and StringFixed) and its ISO 4217 numeric Currency
// (USD, CAD, MXN).
//
// # Events
//
// One Event type is used for the event log (Events.List), live
// subscriptions (Events.Subscribe, which resume after a dropped connection
// without a gap or a duplicate) and webhook deliveries (WebhookVerifier).
//
// # Errors, retries and timeouts
//
// Every refusal is an *Error: its HTTP status, the problem document's type,
// title, detail and code, the offending fields, the request id and
// RetryAfter; a GraphQL error is the same type, with extensions.code in
// Code. A request is sent again (at most WithMaxRetries times, 2 by
// default) after 429 or 503, or when the connection could not be made; a
// read, search, update or delete also after 500, 502, 504 or a connection
// lost mid-request. The wait is the answer's Retry-After (up to
// WithMaxWait, 60 s) or an exponential backoff with full jitter. A refused
// token is renewed once. Each attempt is bounded by WithTimeout (30 s); the
// context bounds the whole call. Every result carries the answer's
// metadata in LastResponse: status, request id, rate limit, attempts.
package haulgraph
