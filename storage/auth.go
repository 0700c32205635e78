package storage

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/clients"
)

// Auth is the clients area's store (clients.Store): client credentials,
// signing keys and revocations.
type Auth struct{ DB *DB }

var _ clients.Store = (*Auth)(nil)

const (
	clientLimitLock = 7340219 // advisory lock class: one client creation per tenant at a time
	keyLockID       = 7340218 // advisory lock serializing key creation and rotation
)

const clientColumns = `id, tenant_id, client_id, secret_hash, name, description, scopes, expires_at, revoked_at, created_at, updated_at`

// CreateClient inserts c when admit, told how many live sets the tenant
// holds, returns nil; creations of one tenant are serialized.
func (s *Auth) CreateClient(ctx context.Context, c clients.Client, admit func(live int) error) (clients.Client, error) {
	err := s.DB.inTenantTx(ctx, c.TenantID, func(ctx context.Context, tx *Tx) error {
		tx.exec("SELECT pg_advisory_xact_lock($1, hashtext($2))", clientLimitLock, c.TenantID.String())
		var live int
		if _, err := tx.queryRow(ctx, "SELECT count(*) FROM api_clients WHERE tenant_id = $1 AND revoked_at IS NULL",
			[]any{&live}, c.TenantID); err != nil {
			return err
		}
		if err := admit(live); err != nil {
			return err
		}
		tx.query(`INSERT INTO api_clients (id, tenant_id, client_id, secret_hash, name, description, scopes, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING created_at, updated_at`,
			func(r pgx.Rows) error { return r.Scan(&c.CreatedAt, &c.UpdatedAt) },
			c.ID, c.TenantID, c.ClientID, c.SecretHash, c.Name, c.Description, c.Scopes, c.ExpiresAt)
		return nil
	})
	return c, err
}

// Clients lists the tenant's credential sets, newest first.
func (s *Auth) Clients(ctx context.Context, tenant uuid.UUID) ([]clients.Client, error) {
	var out []clients.Client
	err := s.DB.inTenantTx(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		selectRows(tx, &out, "SELECT "+clientColumns+" FROM api_clients WHERE tenant_id = $1 ORDER BY created_at DESC LIMIT 500", tenant)
		return nil
	})
	return out, err
}

// RevokeClient revokes a live set; false when there is none of that id.
func (s *Auth) RevokeClient(ctx context.Context, tenant uuid.UUID, clientID string) (bool, error) {
	var n int64
	err := s.DB.inTenantTx(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		tx.execCount(&n, "UPDATE api_clients SET revoked_at = now(), updated_at = now() WHERE tenant_id = $1 AND client_id = $2 AND revoked_at IS NULL",
			tenant, clientID)
		return nil
	})
	return n > 0, err
}

// EditClient locks a live set, lets edit change it and saves name,
// description, scopes and expiry; notFound when there is no such live set.
func (s *Auth) EditClient(ctx context.Context, tenant uuid.UUID, clientID string, edit func(*clients.Client) error) (clients.Client, error) {
	var c clients.Client
	err := s.DB.inTenantTx(ctx, tenant, func(ctx context.Context, tx *Tx) error {
		found := false
		tx.query("SELECT "+clientColumns+" FROM api_clients WHERE tenant_id = $1 AND client_id = $2 AND revoked_at IS NULL FOR UPDATE",
			func(r pgx.Rows) error { found = true; return byName(&c)(r) }, tenant, clientID)
		if err := tx.flush(ctx); err != nil {
			return err
		}
		if !found {
			return domain.NotFound("no active client %q for this customer", clientID)
		}
		if err := edit(&c); err != nil {
			return err
		}
		tx.query(`UPDATE api_clients SET name = $3, description = $4, scopes = $5, expires_at = $6, updated_at = now()
			WHERE tenant_id = $1 AND id = $2 RETURNING updated_at`, func(r pgx.Rows) error { return r.Scan(&c.UpdatedAt) },
			tenant, c.ID, c.Name, c.Description, c.Scopes, c.ExpiresAt)
		return nil
	})
	return c, err
}

// ClientByID finds a client by its id across tenants (the token endpoint
// does not know the tenant yet).
func (s *Auth) ClientByID(ctx context.Context, clientID string) (c clients.Client, found bool, err error) {
	err = s.DB.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query("SELECT "+clientColumns+" FROM api_clients WHERE client_id = $1",
			func(r pgx.Rows) error { found = true; return byName(&c)(r) }, clientID)
		return nil
	})
	return c, found, err
}

// TenantBySlug finds a tenant (operators name tenants by slug).
func (s *Auth) TenantBySlug(ctx context.Context, slug string) (domain.Tenant, error) {
	return (&Tenants{DB: s.DB}).TenantBySlug(ctx, slug)
}

// EnsureSigningKey inserts newKey() when no key is active (first start).
func (s *Auth) EnsureSigningKey(ctx context.Context, newKey func() (clients.SigningKey, error)) error {
	return s.DB.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		tx.exec("SELECT pg_advisory_xact_lock($1)", keyLockID)
		var n int
		if _, err := tx.queryRow(ctx, "SELECT count(*) FROM signing_keys WHERE retired_at IS NULL", []any{&n}); err != nil || n > 0 {
			return err
		}
		return insertKey(tx, newKey)
	})
}

// RotateSigningKey retires the active key, which keeps verifying for
// keepFor, and inserts newKey().
func (s *Auth) RotateSigningKey(ctx context.Context, keepFor time.Duration, newKey func() (clients.SigningKey, error)) error {
	return s.DB.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		tx.exec("SELECT pg_advisory_xact_lock($1)", keyLockID)
		tx.exec("UPDATE signing_keys SET retired_at = now(), not_after = now() + $1::interval WHERE retired_at IS NULL",
			fmt.Sprintf("%d milliseconds", keepFor.Milliseconds()))
		return insertKey(tx, newKey)
	})
}

func insertKey(tx *Tx, newKey func() (clients.SigningKey, error)) error {
	k, err := newKey()
	if err != nil {
		return err
	}
	tx.exec("INSERT INTO signing_keys (kid, algorithm, private_key) VALUES ($1, $2, $3)", k.KID, k.Algorithm, k.PrivateKey)
	return nil
}

// SigningKeys returns every key that may still verify a token, newest first.
func (s *Auth) SigningKeys(ctx context.Context) ([]clients.SigningKey, error) {
	var out []clients.SigningKey
	err := s.DB.inSystemTx(ctx, func(ctx context.Context, tx *Tx) error {
		selectRows(tx, &out, "SELECT kid, algorithm, private_key, created_at, not_after FROM signing_keys WHERE not_after IS NULL OR not_after > now() ORDER BY created_at DESC")
		return nil
	})
	return out, err
}

// Revocations reads the clients revoked after since, the revoked tokens not
// yet expired and the kids still verifying, in one round trip.
func (s *Auth) Revocations(ctx context.Context, since time.Time) (clients.Revocations, error) {
	var rv clients.Revocations
	err := s.DB.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.query(`SELECT client_id, '' FROM api_clients WHERE revoked_at > $1
			UNION ALL SELECT client_id, jti FROM token_revocations WHERE expires_at > now()`, func(r pgx.Rows) error {
			var client, jti string
			if err := r.Scan(&client, &jti); err != nil {
				return err
			}
			if jti == "" {
				rv.Clients = append(rv.Clients, client)
			} else {
				rv.Tokens = append(rv.Tokens, [2]string{client, jti})
			}
			return nil
		}, since)
		tx.query("SELECT kid FROM signing_keys WHERE not_after IS NULL OR not_after > now()", func(r pgx.Rows) error {
			var kid string
			err := r.Scan(&kid)
			rv.KIDs = append(rv.KIDs, kid)
			return err
		})
		return nil
	})
	return rv, err
}

// RevokeToken records a revoked token until expires; expired records are
// pruned by the same statement.
func (s *Auth) RevokeToken(ctx context.Context, tenant uuid.UUID, clientID, jti string, expires time.Time) error {
	return s.DB.inSystemPipeline(ctx, func(ctx context.Context, tx *Tx) error {
		tx.exec(`WITH pruned AS (DELETE FROM token_revocations WHERE expires_at < now())
			INSERT INTO token_revocations (client_id, jti, tenant_id, expires_at) VALUES ($1, $2, $3, $4)
			ON CONFLICT (client_id, jti) DO NOTHING`, clientID, jti, tenant, expires)
		return nil
	})
}
