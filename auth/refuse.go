package auth

import "net/http"

// WriteOAuthError answers a token or revocation request in the endpoints'
// RFC 6749 error format when something before them refuses it (the
// server's body bound).
func WriteOAuthError(w http.ResponseWriter, status int, code, desc string) {
	writeOAuthError(w, oauthErr(status, code, desc))
}
