package auth

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/httpedge"
	"github.com/haulgraph/haulgraph/jsonkey"
)

// OAuthError is an RFC 6749 §5.2 error response.
type OAuthError struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

func (e *OAuthError) Error() string { return e.Code + ": " + e.Description }

func oauthErr(status int, code, desc string) *OAuthError {
	return &OAuthError{Status: status, Code: code, Description: desc}
}

// tokenResponse is the RFC 6749 §5.1 success body.
type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
	Scope       string `json:"scope,omitempty"`
}

// tokenRequest holds docs/api-contract.md §5.2's fields, from either body type.
type tokenRequest struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
	Audience     string `json:"audience"`
	GrantType    string `json:"grant_type"`
	Scope        string `json:"scope"`
	// Token and TokenTypeHint are POST /oauth/revoke's (RFC 7009).
	Token         string `json:"token"`
	TokenTypeHint string `json:"token_type_hint"`
}

// field is the value of the field named name, one of domain.OAuthFields
// (TestTokenFieldBounds sends each).
func (r *tokenRequest) field(name string) string {
	switch name {
	case "client_secret":
		return r.ClientSecret
	case "audience":
		return r.Audience
	case "scope":
		return r.Scope
	case "token":
		return r.Token
	case "token_type_hint":
		return r.TokenTypeHint
	}
	panic("auth: a token request has no field " + name)
}

// maxTokenBody bounds the token request body.
const maxTokenBody = 16 << 10

// TokenHandler serves POST /oauth/token (docs/api-contract.md §4.9, §5.2); other methods get
// a JSON 405.
func (s *Service) TokenHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			writeMethodNotAllowed(w)
			return
		}
		s.serveToken(w, r, uuid.Nil)
	})
}

// writeMethodNotAllowed answers a non-POST request to an OAuth endpoint in
// the endpoint's own JSON error format (not the mux's text/plain).
func writeMethodNotAllowed(w http.ResponseWriter) {
	w.Header().Set("Allow", http.MethodPost)
	writeOAuthError(w, oauthErr(http.StatusMethodNotAllowed, "invalid_request", "use POST"))
}

// LegacyTokenHandler serves the older flow at
// /api/authentication/{tenant_id}/token while it lasts: the same client
// credentials, but the token carries no scope claim (docs/api-contract.md §5.4). The caller
// answers 410 once the cutoff has passed.
func (s *Service) LegacyTokenHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tenant, err := uuid.Parse(r.PathValue("tenant_id"))
		if err != nil {
			writeOAuthError(w, oauthErr(400, "invalid_request", "tenant_id in the path is not a valid id"))
			return
		}
		s.serveToken(w, r, tenant)
	})
}

// serveToken issues a token; legacyTenant ≠ Nil selects the legacy flow.
func (s *Service) serveToken(w http.ResponseWriter, r *http.Request, legacyTenant uuid.UUID) {
	outcome := "issued" // or the OAuth error code answered
	if s.cfg.CountToken != nil {
		defer func() { s.cfg.CountToken(outcome) }()
	}
	req, oerr := parseTokenRequest(w, r)
	// Every request, well-formed or not, is charged before the database
	// sees anything: guessing is slow and floods are cheap to refuse.
	if terr := s.throttle(w, r, ""); terr != nil {
		outcome = terr.Code
		writeOAuthError(w, terr)
		return
	}
	if oerr == nil {
		oerr = s.checkTokenRequest(req)
	}
	var client *Client
	if oerr == nil {
		var err error
		if client, err = s.authenticate(w, r, req.ClientID, req.ClientSecret); err != nil && !errors.As(err, &oerr) {
			oerr = failed(r, "token endpoint: client lookup", err, "the token could not be issued; try again")
		}
	}
	if oerr == nil && legacyTenant != uuid.Nil && client.TenantID != legacyTenant {
		oerr = oauthErr(401, "invalid_client", "the client does not belong to this tenant")
	}
	if oerr == nil {
		oerr = checkScopes(client, domain.ParseScopes(req.Scope))
	}
	if oerr != nil {
		outcome = oerr.Code
		writeOAuthError(w, oerr)
		return
	}
	// Rules 1 and 2 of docs/api-contract.md §5.2: the token carries every granted scope.
	granted := strings.Join(client.Scopes, " ")
	scope := &granted
	if legacyTenant != uuid.Nil {
		scope = nil
	}
	token, expiresIn, err := s.mint(r.Context(), client, scope)
	if err != nil {
		oerr = failed(r, "token endpoint: sign", err, "the token could not be issued; try again")
		outcome = oerr.Code
		writeOAuthError(w, oerr)
		return
	}
	setNoStore(w)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(tokenResponse{AccessToken: token, TokenType: "Bearer", ExpiresIn: expiresIn, Scope: granted})
}

// parseTokenRequest reads the JSON or form body and HTTP Basic credentials.
func parseTokenRequest(w http.ResponseWriter, r *http.Request) (tokenRequest, *OAuthError) {
	var req tokenRequest
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || (mt != "application/json" && mt != "application/x-www-form-urlencoded") {
		return req, oauthErr(415, "invalid_request", "unsupported Content-Type: use application/json or application/x-www-form-urlencoded")
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxTokenBody)
	if mt == "application/json" {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return req, bodyError(err, "the body cannot be read")
		}
		if oerr := decodeJSONObject(body, &req); oerr != nil {
			return req, oerr
		}
	} else {
		if err := r.ParseForm(); err != nil {
			return req, bodyError(err, "the form body cannot be parsed")
		}
		for k, v := range r.PostForm {
			if len(v) > 1 {
				return req, oauthErr(400, "invalid_request", fmt.Sprintf("parameter %q is repeated", k))
			}
		}
		f := r.PostForm.Get
		req = tokenRequest{ClientID: f("client_id"), ClientSecret: f("client_secret"), Audience: f("audience"), GrantType: f("grant_type"), Scope: f("scope"),
			Token: f("token"), TokenTypeHint: f("token_type_hint")}
	}
	if id, secret, ok := r.BasicAuth(); ok { // client_secret_basic: form-encoded per RFC 6749 §2.3.1
		if req.ClientSecret != "" {
			return req, oauthErr(400, "invalid_request", "send the client credentials either with HTTP Basic or in the body, not both")
		}
		uid, err1 := url.QueryUnescape(id)
		usecret, err2 := url.QueryUnescape(secret)
		if err1 != nil || err2 != nil || (req.ClientID != "" && req.ClientID != uid) {
			return req, oauthErr(400, "invalid_request", "the HTTP Basic credentials are malformed or disagree with client_id")
		}
		req.ClientID, req.ClientSecret = uid, usecret
	}
	for _, f := range domain.OAuthFields {
		if domain.Length(req.field(f.Name)) > f.MaxLength {
			return req, oauthErr(400, "invalid_request", fmt.Sprintf("%s must be at most %d characters", f.Name, f.MaxLength))
		}
	}
	return req, nil
}

// decodeJSONObject decodes one JSON object of string fields into req,
// refusing a repeated key as the form decoding does: with duplicates (in
// any spelling encoding/json matches alike), which value counts would
// depend on the parser.
func decodeJSONObject(body []byte, req *tokenRequest) *OAuthError {
	notObject := oauthErr(400, "invalid_request", "the body is not a JSON object of string fields")
	if key, repeated := jsonkey.Repeated(body); repeated {
		return oauthErr(400, "invalid_request", fmt.Sprintf("parameter %q is repeated", key))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return notObject
	}
	dec = json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(req); err != nil {
		return notObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return oauthErr(400, "invalid_request", "the body must hold exactly one JSON object")
	}
	return nil
}

func bodyError(err error, msg string) *OAuthError {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return oauthErr(413, "invalid_request", fmt.Sprintf("the body exceeds %d bytes", maxTokenBody))
	}
	return oauthErr(400, "invalid_request", msg)
}

// checkTokenRequest applies docs/api-contract.md §5.2's field rules (before touching the database).
func (s *Service) checkTokenRequest(req tokenRequest) *OAuthError {
	switch {
	case req.GrantType == "":
		return oauthErr(400, "invalid_request", "grant_type is required")
	case req.GrantType != "client_credentials":
		return oauthErr(400, "unsupported_grant_type", "grant_type must be client_credentials")
	case req.ClientID == "" || req.ClientSecret == "":
		return oauthErr(400, "invalid_request", "client_id and client_secret are required (in the body or with HTTP Basic)")
	case checkClientID(req.ClientID) != nil:
		return checkClientID(req.ClientID)
	case req.Audience == "":
		return oauthErr(400, "invalid_request", "audience is required")
	case req.Audience != s.cfg.Audience:
		return oauthErr(400, "invalid_request", "audience must be "+s.cfg.Audience)
	}
	return nil
}

// checkClientID refuses a client_id no client can have (domain's rule)
// before it reaches a limiter or the database.
func checkClientID(id string) *OAuthError {
	if err := domain.CheckClientID(id); err != nil {
		return oauthErr(400, "invalid_request", "client_id "+err.Error())
	}
	return nil
}

// throttle charges a request to the token endpoint's buckets
// (Config.Throttle): clientID "" for the caller's, else the client's. A
// refusal is slow_down (429, the IANA-registered token endpoint error for
// "too fast", RFC 8628); a limiter that cannot answer refuses too, with
// temporarily_unavailable (503): credentials are never checked unthrottled.
func (s *Service) throttle(w http.ResponseWriter, r *http.Request, clientID string) *OAuthError {
	if s.cfg.Throttle == nil {
		return nil
	}
	switch err := s.cfg.Throttle(w, r, clientID); {
	case err == nil:
		return nil
	case domain.CodeOf(err) == domain.CodeRateLimited:
		return oauthErr(http.StatusTooManyRequests, "slow_down", "too many requests: retry after the number of seconds in Retry-After")
	default:
		return oauthErr(http.StatusServiceUnavailable, "temporarily_unavailable", "the service is temporarily unavailable: retry after the number of seconds in Retry-After")
	}
}

// checkScopes applies docs/api-contract.md §5.2 rule 3: any requested scope that is not
// granted fails the request, naming the offenders.
func checkScopes(c *Client, requested []domain.Scope) *OAuthError {
	var denied []string
	for _, sc := range requested {
		if !slices.Contains(c.Scopes, string(sc)) && !slices.Contains(denied, string(sc)) {
			denied = append(denied, string(sc))
		}
	}
	if len(denied) > 0 {
		return oauthErr(403, "access_denied", "scopes not granted to this client: "+strings.Join(denied, " "))
	}
	return nil
}

// failed is the answer to an error that is not the client's: RFC 6749's
// temporarily_unavailable (503, Retry-After) while the database cannot be
// reached, otherwise a logged server_error.
func failed(r *http.Request, what string, err error, desc string) *OAuthError {
	if domain.CodeOf(err) == domain.CodeUnavailable {
		return oauthErr(http.StatusServiceUnavailable, "temporarily_unavailable", "the service is temporarily unavailable: retry after the number of seconds in Retry-After")
	}
	slog.ErrorContext(r.Context(), what, "err", err)
	return oauthErr(http.StatusInternalServerError, "server_error", desc)
}

func writeOAuthError(w http.ResponseWriter, e *OAuthError) {
	setNoStore(w)
	if e.Status == http.StatusServiceUnavailable {
		httpedge.Unavailable(w.Header())
	}
	if e.Status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Basic realm="haulgraph", charset="UTF-8"`)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(e.Status)
	_ = json.NewEncoder(w).Encode(e)
}

func setNoStore(w http.ResponseWriter) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
}
