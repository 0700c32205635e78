// Package haulgraph is the Go client of the HaulGraph public API: REST
// routes, the GraphQL operations a dashboard uses, live subscriptions that
// resume where they left off, and webhook signature verification.
//
//	c, err := haulgraph.New(
//		haulgraph.WithBaseURL("https://api.example.com"),
//		haulgraph.WithClientCredentials(clientID, clientSecret),
//	)
//	for s, err := range c.Statements(ctx, haulgraph.StatementSearch{...}) { ... }
//
// The REST types (types.gen.go) are generated from the served OpenAPI
// document; amounts are decimal.Decimal, never floats. See docs/sdk-go.md.
package haulgraph

//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../../rest/openapi.json
