package auth

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/haulgraph/haulgraph/domain"
)

// maxCachedTokens bounds the verified-token cache: a token is ~1 KB of
// claims we keep as a Principal, so the cache stays a few MB at most.
const maxCachedTokens = 10000

// verified is what one full verification established about a token. The
// cache keeps it so that later requests with the same token cost one map
// look-up instead of two parses and an ECDSA verification; the checks that
// can change while the token lives (revocation, the signing key's removal)
// are made again on every use (Service.stillValid).
type verified struct {
	p      *domain.Principal
	until  time.Time // the token's exp (or the legacy cutoff, if earlier)
	kid    string    // our own key that signed it; "" for an external issuer
	jti    string
	client string
}

// tokenCache maps SHA-256(token) to what verifying it established.
type tokenCache struct {
	mu      sync.Mutex
	entries map[[sha256.Size]byte]*verified
}

func newTokenCache() *tokenCache {
	return &tokenCache{entries: make(map[[sha256.Size]byte]*verified)}
}

func (c *tokenCache) get(key [sha256.Size]byte, now time.Time) *verified {
	c.mu.Lock()
	defer c.mu.Unlock()
	v := c.entries[key]
	if v != nil && !now.Before(v.until) {
		delete(c.entries, key)
		return nil
	}
	return v
}

// put adds v; when full it first drops expired entries, then arbitrary
// ones (a miss only costs a verification).
func (c *tokenCache) put(key [sha256.Size]byte, v *verified, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= maxCachedTokens {
		for k, e := range c.entries {
			if !now.Before(e.until) {
				delete(c.entries, k)
			}
		}
		for k := range c.entries {
			if len(c.entries) < maxCachedTokens*9/10 {
				break
			}
			delete(c.entries, k)
		}
	}
	c.entries[key] = v
}
