package auth

import (
	"crypto/sha256"
	"strconv"
	"testing"
	"time"
)

// The verified-token cache stays bounded: expired entries go first, then
// arbitrary ones; an expired entry is never served.
func TestTokenCacheIsBounded(t *testing.T) {
	t.Parallel()
	c := newTokenCache()
	now := time.Now()
	key := func(i int) [sha256.Size]byte { return sha256.Sum256([]byte(strconv.Itoa(i))) }
	for i := range maxCachedTokens {
		until := now.Add(time.Hour)
		if i%2 == 0 {
			until = now.Add(time.Second)
		}
		c.put(key(i), &verified{until: until}, now)
	}
	later := now.Add(2 * time.Second)
	if c.get(key(0), later) != nil {
		t.Fatal("an expired entry was served")
	}
	for i := maxCachedTokens; i < 2*maxCachedTokens; i++ {
		c.put(key(i), &verified{until: later.Add(time.Hour)}, later)
		if n := len(c.entries); n > maxCachedTokens {
			t.Fatalf("%d entries, bound %d", n, maxCachedTokens)
		}
	}
	if c.get(key(2*maxCachedTokens-1), later) == nil {
		t.Fatal("the newest entry was evicted")
	}
}
