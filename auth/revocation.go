package auth

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"
)

// DefaultRevocationPoll is how stale an instance's revocation list may get:
// a client revoked (CLI, any instance) or a token revoked at /oauth/revoke
// on one instance is refused by every instance within this interval.
const DefaultRevocationPoll = time.Second

// revocationList is the instance's in-memory copy of what is revoked,
// consulted on every request. A request finding it older than the poll
// interval refreshes it first (one batch of two small queries, at most once
// per interval per instance), so no request uses a list older than that and
// no background goroutine is needed.
type revocationList struct {
	store     Store
	interval  time.Duration
	horizon   time.Duration // a client revoked longer ago has no live token
	onKeys    func(ctx context.Context, kids map[string]bool)
	refreshMu sync.Mutex // one refresh at a time; others wait for it

	mu       sync.RWMutex
	clients  map[string]bool // client_id (ids are unique across tenants)
	tokens   map[string]bool // client_id + "\x00" + jti
	loadedAt time.Time
}

// revokedClient and revokedToken say whether the client, or one token of
// it, is revoked (refreshing the list first when it is stale).
func (l *revocationList) revoked(ctx context.Context, clientID, jti string) (client, token bool) {
	l.maybeRefresh(ctx)
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.clients[clientID], jti != "" && l.tokens[clientID+"\x00"+jti]
}

func (l *revocationList) stale(now time.Time) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return now.Sub(l.loadedAt) >= l.interval
}

func (l *revocationList) maybeRefresh(ctx context.Context) {
	if !l.stale(time.Now()) {
		return
	}
	l.refreshMu.Lock()
	defer l.refreshMu.Unlock()
	if !l.stale(time.Now()) { // another request refreshed it meanwhile
		return
	}
	if err := l.refresh(ctx); err != nil && ctx.Err() == nil {
		// Keep the last list; the next request retries after the interval.
		slog.ErrorContext(ctx, "auth: refresh the revocation list", "err", err)
		l.mu.Lock()
		l.loadedAt = time.Now()
		l.mu.Unlock()
	}
}

// refreshNow refreshes the list at once (after a revocation made here).
func (l *revocationList) refreshNow(ctx context.Context) error {
	l.refreshMu.Lock()
	defer l.refreshMu.Unlock()
	return l.refresh(ctx)
}

// refresh reads the revoked clients and tokens that may still have live
// tokens, and the signing keys still valid (so a key removed from the
// database stops verifying cached tokens too), in one round trip.
func (l *revocationList) refresh(ctx context.Context) error {
	start := time.Now()
	rv, err := l.store.Revocations(ctx, start.Add(-l.horizon))
	if err != nil {
		return fmt.Errorf("revocations: %w", err)
	}
	clients, tokens, kids := map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, c := range rv.Clients {
		clients[c] = true
	}
	for _, t := range rv.Tokens {
		tokens[t[0]+"\x00"+t[1]] = true
	}
	for _, kid := range rv.KIDs {
		kids[kid] = true
	}
	l.mu.Lock()
	l.clients, l.tokens, l.loadedAt = clients, tokens, start
	l.mu.Unlock()
	if l.onKeys != nil {
		l.onKeys(ctx, kids)
	}
	return nil
}

// sameKeys reports whether the key ring holds exactly kids.
func sameKeys(ring map[string]*signingKey, kids map[string]bool) bool {
	return len(ring) == len(kids) && maps.EqualFunc(kids, ring, func(bool, *signingKey) bool { return true })
}
