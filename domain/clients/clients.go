// Package clients is the API clients area: the credential sets a tenant
// issues (docs/api-contract.md §5.1), the keys tokens are signed with, what
// is revoked, and the store port the token service keeps them behind. The
// token service (auth) decides; storage loads and saves.
package clients

import (
	"context"
	"time"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
)

// Client is one set of client credentials. The secret is never stored; only
// its hash is.
type Client struct {
	ID          uuid.UUID  `json:"-" db:"id"`
	TenantID    uuid.UUID  `json:"-" db:"tenant_id"`
	ClientID    string     `json:"client_id" db:"client_id"`
	SecretHash  []byte     `json:"-" db:"secret_hash"`
	Name        string     `json:"name" db:"name"`
	Description string     `json:"description" db:"description"`
	Scopes      []string   `json:"scopes" db:"scopes"`
	ExpiresAt   *time.Time `json:"expires_at" db:"expires_at"`
	RevokedAt   *time.Time `json:"revoked_at" db:"revoked_at"`
	CreatedAt   time.Time  `json:"created_at" db:"created_at"`
	UpdatedAt   time.Time  `json:"updated_at" db:"updated_at"`
}

// Active reports whether the client may obtain tokens at now.
func (c *Client) Active(now time.Time) bool {
	return c.RevokedAt == nil && (c.ExpiresAt == nil || now.Before(*c.ExpiresAt))
}

// SigningKey is one sealed signing key.
type SigningKey struct {
	KID        string     `db:"kid"`
	Algorithm  string     `db:"algorithm"`
	PrivateKey []byte     `db:"private_key"` // sealed
	CreatedAt  time.Time  `db:"created_at"`
	NotAfter   *time.Time `db:"not_after"` // nil while the key is the active one
}

// Revocations is what the token service must refuse: revoked clients,
// revoked tokens (client id and jti) and the kids that still verify.
type Revocations struct {
	Clients []string
	Tokens  [][2]string
	KIDs    []string
}

// Store keeps client credentials, sealed signing keys and revocations
// (storage.Auth implements it).
type Store interface {
	// CreateClient saves c when admit, told how many live sets the tenant
	// holds, returns nil; creations of one tenant are serialized.
	CreateClient(ctx context.Context, c Client, admit func(live int) error) (Client, error)
	Clients(ctx context.Context, tenant uuid.UUID) ([]Client, error)
	RevokeClient(ctx context.Context, tenant uuid.UUID, clientID string) (bool, error)
	// EditClient locks a live set, lets edit change it and saves it.
	EditClient(ctx context.Context, tenant uuid.UUID, clientID string, edit func(*Client) error) (Client, error)
	ClientByID(ctx context.Context, clientID string) (Client, bool, error)
	TenantBySlug(ctx context.Context, slug string) (domain.Tenant, error)
	EnsureSigningKey(ctx context.Context, newKey func() (SigningKey, error)) error
	RotateSigningKey(ctx context.Context, keepFor time.Duration, newKey func() (SigningKey, error)) error
	SigningKeys(ctx context.Context) ([]SigningKey, error)
	Revocations(ctx context.Context, since time.Time) (Revocations, error)
	RevokeToken(ctx context.Context, tenant uuid.UUID, clientID, jti string, expires time.Time) error
}
