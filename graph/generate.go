// Package graph assembles the GraphQL server: gqlgen's executable schema
// (graph/generated), transports, directives, limits and dataloaders.
package graph

//go:generate sh -c "cd .. && go run ./graph/gqlgenrun"
