package haulgraph

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// GraphQL sends one operation to /graphql and decodes its data into out. A
// GraphQL error (errors[] in the answer) is returned as an *Error whose Code
// is its extensions.code; out still receives whatever data came. Queries are
// retried as REST reads are, mutations as REST writes: use Mutate for those.
func (c *Client) GraphQL(ctx context.Context, query string, variables map[string]any, out any) (*Response, error) {
	return c.graphql(ctx, query, variables, out, true)
}

// Mutate is GraphQL for a mutation: it is retried only when the server
// certainly did not act (429, 503, a connection never made).
func (c *Client) Mutate(ctx context.Context, query string, variables map[string]any, out any) (*Response, error) {
	return c.graphql(ctx, query, variables, out, false)
}

func (c *Client) graphql(ctx context.Context, query string, variables map[string]any, out any, idempotent bool) (*Response, error) {
	body := jsonBody(map[string]any{"query": query, "variables": variables})
	var res struct {
		Data   json.RawMessage `json:"data"`
		Errors []gqlError      `json:"errors"`
	}
	meta, err := c.do(ctx, request{method: http.MethodPost, path: "/graphql", body: body, ctype: "application/json",
		accept: "application/graphql-response+json, application/json", idempotent: idempotent}, &res)
	if err != nil {
		return meta, err
	}
	if out != nil && len(res.Data) > 0 && string(res.Data) != "null" {
		if err := json.Unmarshal(res.Data, out); err != nil {
			return meta, fmt.Errorf("haulgraph: decoding GraphQL data: %w", err)
		}
	}
	if len(res.Errors) > 0 {
		e := &Error{StatusCode: meta.StatusCode, RequestID: meta.RequestID, Response: meta}
		res.Errors[0].fill(e)
		return meta, e
	}
	return meta, nil
}
