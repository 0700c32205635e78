package auth

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/google/uuid"
)

// RevocationHandler serves POST /oauth/revoke (RFC 7009): a client revokes
// one of its own access tokens, which every instance then refuses within
// the revocation poll interval (this one at once). The client authenticates
// as at the token endpoint and is throttled with it. As RFC 7009 §2.2 asks,
// a token that is invalid, expired, not ours or another client's is
// answered 200 like a revoked one: the answer tells nothing about it.
func (s *Service) RevocationHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			writeMethodNotAllowed(w)
			return
		}
		req, oerr := parseTokenRequest(w, r)
		if terr := s.throttle(w, r, ""); terr != nil {
			writeOAuthError(w, terr)
			return
		}
		switch {
		case oerr != nil:
		case req.ClientID == "" || req.ClientSecret == "":
			oerr = oauthErr(400, "invalid_request", "client_id and client_secret are required (in the body or with HTTP Basic)")
		case checkClientID(req.ClientID) != nil:
			oerr = checkClientID(req.ClientID)
		case req.Token == "":
			oerr = oauthErr(400, "invalid_request", "token is required")
		}
		var client *Client
		if oerr == nil {
			var err error
			if client, err = s.authenticate(w, r, req.ClientID, req.ClientSecret); err != nil && !errors.As(err, &oerr) {
				oerr = failed(r, "revocation endpoint: client lookup", err, "the token could not be revoked; try again")
			}
		}
		if oerr == nil {
			if err := s.RevokeToken(r.Context(), client.ClientID, req.Token); err != nil {
				oerr = failed(r, "revocation endpoint: revoke", err, "the token could not be revoked; try again")
			}
		}
		if oerr != nil {
			writeOAuthError(w, oerr)
			return
		}
		setNoStore(w)
		w.WriteHeader(http.StatusOK)
	})
}

// RevokeToken revokes raw, an access token this server issued to clientID,
// by its jti. Anything else (malformed, not signed by our keys, expired,
// another client's) is ignored without error (RFC 7009 §2.2).
func (s *Service) RevokeToken(ctx context.Context, clientID, raw string) error {
	if len(raw) > maxTokenLen {
		return nil
	}
	jws, err := jose.ParseSignedCompact(raw, toJoseAlgs(ownAlgs))
	if err != nil || len(jws.Signatures) != 1 {
		return nil
	}
	pub, ok := s.keys.lookup(ctx, jws.Signatures[0].Header.KeyID)
	if !ok {
		return nil
	}
	payload, err := jws.Verify(pub)
	if err != nil {
		return nil
	}
	var c accessClaims
	if json.Unmarshal(payload, &c) != nil {
		return nil
	}
	tenant, err := uuid.Parse(c.TenantID)
	exp := time.Unix(c.Expiry, 0)
	if err != nil || c.Issuer != s.cfg.Issuer || c.ClientID != clientID || c.JTI == "" || !time.Now().Before(exp) {
		return nil
	}
	// Kept until the token would have expired anyway (plus the leeway);
	// expired rows are pruned by the same statement.
	if err := s.store.RevokeToken(ctx, tenant, c.ClientID, c.JTI, exp.Add(clockLeeway)); err != nil {
		return err
	}
	return s.revocations.refreshNow(ctx)
}
