package auth

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
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
	pool      *pgxpool.Pool
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
	b := &pgx.Batch{}
	b.Queue(`SELECT client_id, '' FROM api_clients WHERE revoked_at > $1
		UNION ALL SELECT client_id, jti FROM token_revocations WHERE expires_at > now()`, start.Add(-l.horizon))
	b.Queue(`SELECT kid FROM signing_keys WHERE not_after IS NULL OR not_after > now()`)
	res := l.pool.SendBatch(ctx, b)
	defer res.Close()
	clients, tokens := map[string]bool{}, map[string]bool{}
	rows, err := res.Query()
	if err != nil {
		return fmt.Errorf("revocations: %w", err)
	}
	var client, jti string
	_, err = pgx.ForEachRow(rows, []any{&client, &jti}, func() error {
		if jti == "" {
			clients[client] = true
		} else {
			tokens[client+"\x00"+jti] = true
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("revocations: %w", err)
	}
	rows, err = res.Query()
	if err != nil {
		return fmt.Errorf("signing keys: %w", err)
	}
	kids := map[string]bool{}
	var kid string
	if _, err := pgx.ForEachRow(rows, []any{&kid}, func() error { kids[kid] = true; return nil }); err != nil {
		return fmt.Errorf("signing keys: %w", err)
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
