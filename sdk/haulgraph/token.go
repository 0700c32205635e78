package haulgraph

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"time"
)

// Token is an access token of the client-credentials grant.
type Token struct {
	AccessToken string    `json:"access_token"`
	TokenType   string    `json:"token_type"`
	Expiry      time.Time `json:"-"`
	ExpiresIn   int64     `json:"expires_in"`
	Scope       string    `json:"scope,omitempty"`
	APIResource
}

// Token returns the access token in use, fetching a new one from
// /oauth/token when there is none or it expires within 10 seconds.
func (c *Client) Token(ctx context.Context) (*Token, error) {
	if c.cfg.token != nil {
		s, err := c.cfg.token(ctx)
		if err != nil {
			return nil, err
		}
		return &Token{AccessToken: s, TokenType: "Bearer"}, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && c.cfg.now().Add(10*time.Second).Before(c.tok.Expiry) {
		return c.tok, nil
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {c.cfg.clientID},
		"client_secret": {c.cfg.clientSecret}, "audience": {c.cfg.audience}}
	var t Token
	// A token request changes nothing the next one depends on: it is
	// retried as a read is.
	meta, err := c.do(ctx, request{method: http.MethodPost, path: "/oauth/token", body: []byte(form.Encode()),
		ctype: "application/x-www-form-urlencoded", idempotent: true, noAuth: true}, &t)
	if err != nil {
		return nil, err
	}
	if t.AccessToken == "" {
		return nil, errors.New("haulgraph: the token endpoint answered no access_token")
	}
	t.Expiry = c.cfg.now().Add(time.Duration(t.ExpiresIn) * time.Second)
	t.LastResponse = meta
	c.tok = &t
	return &t, nil
}

// dropToken forgets access when it is the token in use (refused: revoked,
// its signing key removed), so that the next call fetches another. Reports
// whether a new token can be had.
func (c *Client) dropToken(access string) bool {
	if c.cfg.clientID == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tok != nil && c.tok.AccessToken == access {
		c.tok = nil
	}
	return true
}

// RevokeToken revokes an access token of this client (RFC 7009); when it
// is the one in use, the next call fetches another.
func (c *Client) RevokeToken(ctx context.Context, token string) (*Response, error) {
	if c.cfg.clientID == "" {
		return nil, errors.New("haulgraph: RevokeToken needs WithClientCredentials")
	}
	form := url.Values{"token": {token}, "client_id": {c.cfg.clientID}, "client_secret": {c.cfg.clientSecret}}
	meta, err := c.do(ctx, request{method: http.MethodPost, path: "/oauth/revoke", body: []byte(form.Encode()),
		ctype: "application/x-www-form-urlencoded", idempotent: true, noAuth: true}, nil)
	if err == nil {
		c.dropToken(token)
	}
	return meta, err
}
