// Package graph is the GraphQL API: go generate writes gqlgen's code
// (graph/generated) from schema/*.graphqls, and the tests here exercise the
// whole endpoint as app composes it. The parts live below: operation (what
// every operation passes: bounds, cost, errors), live (shared subscription
// executions), transport (HTTP, WebSocket, SSE, multipart).
package graph

//go:generate sh -c "cd .. && go run ./graph/gqlgenrun"
