// Package resolvers holds the GraphQL resolvers: thin functions that convert
// arguments and call domain services.
package resolvers

// Resolver is the root resolver; its fields are the domain services.
type Resolver struct{}
