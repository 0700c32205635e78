package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/haulgraph/haulgraph/app"
)

// apiFlags are the flags of the commands that work through the public API
// as an integrator does (listen, trigger), not on the database.
type apiFlags struct {
	api, clientID, clientSecret, audience *string
}

const apiEnvHelp = `environment:
  HAULGRAPH_CLIENT_ID, HAULGRAPH_CLIENT_SECRET  the API client's credentials when the flags are not given;
                            without either, make run's demo client (.data/demo-client.json) is used
`

func defineAPIFlags(fs *flag.FlagSet) apiFlags {
	return apiFlags{
		api:          fs.String("api", "http://127.0.0.1:8080", "base URL of the HaulGraph API"),
		clientID:     fs.String("client-id", "", "API client id (default $HAULGRAPH_CLIENT_ID, else make run's demo client)"),
		clientSecret: fs.String("client-secret", "", "API client secret (default $HAULGRAPH_CLIENT_SECRET, else make run's demo client)"),
		audience:     fs.String("audience", app.DefaultAudience, "the audience the token is asked for"),
	}
}

// apiClient calls the public API with a client-credentials token, renewed
// by the token source before it expires.
type apiClient struct {
	base     *url.URL
	clientID string
	http     *http.Client
}

// signIn resolves the credentials (flags, then the environment, then the
// demo's saved client) and fetches a first token, so a wrong secret or API
// URL is reported before anything else happens.
func (f apiFlags) signIn(ctx context.Context) (*apiClient, error) {
	base, err := url.Parse(strings.TrimRight(*f.api, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") || base.Host == "" {
		return nil, usageError(fmt.Sprintf("--api %q is not an http(s) URL", *f.api))
	}
	id, secret := *f.clientID, *f.clientSecret
	if id == "" {
		id = os.Getenv("HAULGRAPH_CLIENT_ID")
	}
	if secret == "" {
		secret = os.Getenv("HAULGRAPH_CLIENT_SECRET")
	}
	if id == "" && secret == "" {
		if b, err := os.ReadFile(demoCredentialsFile(app.Config{})); err == nil {
			var creds demoCredentials
			if json.Unmarshal(b, &creds) == nil {
				id, secret = creds.ClientID, creds.ClientSecret
			}
		}
	}
	if id == "" || secret == "" {
		return nil, usageError("no API client: give --client-id and --client-secret (or HAULGRAPH_CLIENT_ID and HAULGRAPH_CLIENT_SECRET), or run make run here for its demo client")
	}
	cc := clientcredentials.Config{
		ClientID: id, ClientSecret: secret,
		TokenURL:       base.String() + "/oauth/token",
		EndpointParams: url.Values{"audience": {*f.audience}},
		AuthStyle:      oauth2.AuthStyleInParams,
	}
	plain := &http.Client{Timeout: 30 * time.Second}
	// Renewals use ctx too: once it ends, listen is stopping anyway.
	tokenCtx := context.WithValue(ctx, oauth2.HTTPClient, plain)
	src := oauth2.ReuseTokenSource(nil, cc.TokenSource(tokenCtx))
	if _, err := src.Token(); err != nil {
		return nil, fmt.Errorf("signing in to %s as %s: %w", base, id, tokenError(err))
	}
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &oauth2.Transport{Source: src, Base: http.DefaultTransport}}
	return &apiClient{base: base, clientID: id, http: hc}, nil
}

// tokenError is the token endpoint's answer in one line.
func tokenError(err error) error {
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if re.ErrorCode != "" {
			return fmt.Errorf("%s (%s, HTTP %d)", re.ErrorDescription, re.ErrorCode, re.Response.StatusCode)
		}
		return fmt.Errorf("HTTP %d", re.Response.StatusCode)
	}
	return err
}

// statusError is an API answer other than 2xx.
type statusError struct {
	status     int
	detail     string
	retryAfter time.Duration
}

func (e *statusError) Error() string {
	if e.detail != "" {
		return fmt.Sprintf("HTTP %d: %s", e.status, e.detail)
	}
	return fmt.Sprintf("HTTP %d", e.status)
}

// answerError reads a problem document's title and detail (or a GraphQL
// error's message) from a failed answer.
func answerError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	var p struct {
		Title, Detail string
		Errors        map[string][]string
	}
	e := &statusError{status: resp.StatusCode}
	if json.Unmarshal(body, &p) == nil {
		parts := []string{}
		for _, s := range []string{p.Title, p.Detail} {
			if s = strings.TrimSuffix(s, "."); s != "" {
				parts = append(parts, s)
			}
		}
		for _, f := range slices.Sorted(maps.Keys(p.Errors)) {
			parts = append(parts, f+": "+strings.Join(p.Errors[f], "; "))
		}
		e.detail = strings.Join(parts, ": ")
	}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if d, err := time.ParseDuration(s + "s"); err == nil {
			e.retryAfter = d
		}
	}
	return e
}

// get GETs path?query and returns the answer of a 2xx.
func (c *apiClient) get(ctx context.Context, path string, q url.Values) (*http.Response, []byte, error) {
	u := c.base.String() + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, nil, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return resp, nil, answerError(resp)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	return resp, body, err
}

// graphql runs one GraphQL operation and decodes its data into out; any
// error the answer carries fails the call.
func (c *apiClient) graphql(ctx context.Context, query string, vars map[string]any, out any) error {
	b, err := json.Marshal(map[string]any{"query": query, "variables": vars})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base.String()+"/graphql", bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		return err
	}
	var answer struct {
		Data   json.RawMessage
		Errors []struct{ Message string }
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return &statusError{status: resp.StatusCode, detail: "not a GraphQL answer"}
	}
	if len(answer.Errors) > 0 {
		msgs := make([]string, len(answer.Errors))
		for i, e := range answer.Errors {
			msgs[i] = e.Message
		}
		return fmt.Errorf("GraphQL: %s", strings.Join(msgs, "; "))
	}
	return json.Unmarshal(answer.Data, out)
}
