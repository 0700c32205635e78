package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/base64"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/domain/clients"
)

// MaxClients is how many live (unrevoked) credential sets a customer may
// hold (docs/api-contract.md §5.1, §8).
const MaxClients = 10

// Client is one set of client credentials (docs/api-contract.md §5.1).
type Client = clients.Client

// ClientSpec is what an administrator chooses for a new credential set.
type ClientSpec struct {
	Name        string
	Description string
	Scopes      []domain.Scope
	ExpiresAt   *time.Time // nil: never expires
}

// ClientEdit changes a credential set; nil fields stay as they are.
type ClientEdit struct {
	Name        *string
	Description *string
	Scopes      []domain.Scope // nil: unchanged
	ExpiresAt   *time.Time
	NoExpiry    bool // remove the expiry date
}

// CreateClient makes a credential set for tenant and returns it with its
// secret, which exists only in this return value.
func (s *Service) CreateClient(ctx context.Context, tenantID uuid.UUID, spec ClientSpec) (*Client, string, error) {
	scopes, err := validateClient(spec.Name, spec.Description, spec.Scopes)
	if err != nil {
		return nil, "", err
	}
	if spec.ExpiresAt != nil && !spec.ExpiresAt.After(time.Now()) {
		return nil, "", &domain.Error{Code: domain.CodeInvalid, Message: "the request has invalid fields",
			Fields: map[string][]string{"expires": {"the expiry date must be in the future"}}}
	}
	secret := "hgcs_" + randomString(32, base64.RawURLEncoding)
	row, err := s.store.CreateClient(ctx, Client{
		ID: uuid.New(), TenantID: tenantID,
		ClientID:   "hgc_" + strings.ToLower(randomString(10, base32.StdEncoding.WithPadding(base32.NoPadding))),
		SecretHash: hashSecret(secret), Name: spec.Name, Description: spec.Description,
		Scopes: scopes, ExpiresAt: spec.ExpiresAt,
	}, admitClient)
	if err != nil {
		return nil, "", err
	}
	return &row, secret, nil
}

// admitClient refuses a new set when the tenant already holds live ones
// up to the maximum.
func admitClient(live int) error {
	if live >= MaxClients {
		return &domain.Error{Code: domain.CodeConflict, Message: fmt.Sprintf(
			"this customer already holds %d client credential sets, the maximum; revoke one before creating another", live)}
	}
	return nil
}

// ListClients returns the tenant's credential sets, newest first (at most
// a few dozen: ten live ones plus the revoked history).
func (s *Service) ListClients(ctx context.Context, tenantID uuid.UUID) ([]Client, error) {
	return s.store.Clients(ctx, tenantID)
}

// RevokeClient ends a credential set: it can obtain no further tokens, and
// the tokens it holds are refused at once here and within the revocation
// poll interval on every other instance.
func (s *Service) RevokeClient(ctx context.Context, tenantID uuid.UUID, clientID string) error {
	revoked, err := s.store.RevokeClient(ctx, tenantID, clientID)
	if err != nil {
		return err
	}
	if !revoked {
		return domain.NotFound("no active client %q for this customer", clientID)
	}
	return s.revocations.refreshNow(ctx)
}

// EditClient changes name, description, scopes or expiry of a live set.
// New scopes take effect with the next token.
func (s *Service) EditClient(ctx context.Context, tenantID uuid.UUID, clientID string, e ClientEdit) (*Client, error) {
	row, err := s.store.EditClient(ctx, tenantID, clientID, func(c *Client) (err error) {
		if e.Name != nil {
			c.Name = *e.Name
		}
		if e.Description != nil {
			c.Description = *e.Description
		}
		scopes := domain.ParseScopes(strings.Join(c.Scopes, " "))
		if e.Scopes != nil {
			scopes = e.Scopes
		}
		if c.Scopes, err = validateClient(c.Name, c.Description, scopes); err != nil {
			return err
		}
		switch {
		case e.NoExpiry:
			c.ExpiresAt = nil
		case e.ExpiresAt != nil:
			c.ExpiresAt = e.ExpiresAt
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &row, nil
}

// TenantBySlug resolves a tenant for operators (the CLI names tenants by slug).
func (s *Service) TenantBySlug(ctx context.Context, slug string) (uuid.UUID, error) {
	t, err := s.store.TenantBySlug(ctx, slug)
	return t.ID, err
}

// authenticate charges the bucket of the client id presented, finds the
// client by id (across tenants: the token endpoint does not know the
// tenant yet) and checks its secret in constant time. Every id is charged
// alike, before the lookup, whether a client has it or not: a limit that
// only existing ids had would tell, by when it refuses, which ids exist.
func (s *Service) authenticate(w http.ResponseWriter, r *http.Request, clientID, secret string) (*Client, error) {
	if oerr := s.throttle(w, r, clientID); oerr != nil {
		return nil, oerr
	}
	c, found, err := s.store.ClientByID(r.Context(), clientID)
	if err != nil {
		return nil, err
	}
	want := c.SecretHash
	if !found {
		want = make([]byte, sha256.Size) // same work whether the id exists or not
	}
	if subtle.ConstantTimeCompare(hashSecret(secret), want) != 1 || !found {
		return nil, oauthErr(401, "invalid_client", "client authentication failed: unknown client_id or wrong client_secret")
	}
	now := time.Now()
	switch {
	case c.RevokedAt != nil:
		return nil, oauthErr(401, "invalid_client", "the client has been revoked")
	case !c.Active(now):
		return nil, oauthErr(401, "invalid_client", "the client expired on "+c.ExpiresAt.UTC().Format(time.RFC3339))
	}
	return &c, nil
}

const (
	maxNameLen        = 100
	maxDescriptionLen = 1000
)

// validateClient checks the administrator's choices and returns the scopes
// deduplicated in catalogue order.
func validateClient(name, description string, scopes []domain.Scope) ([]string, error) {
	var v domain.Validation
	if strings.TrimSpace(name) == "" {
		v.Add("name", "a name is required")
	} else if utf8.RuneCountInString(name) > maxNameLen {
		v.Add("name", fmt.Sprintf("at most %d characters", maxNameLen))
	}
	if utf8.RuneCountInString(description) > maxDescriptionLen {
		v.Add("description", fmt.Sprintf("at most %d characters", maxDescriptionLen))
	}
	if len(scopes) == 0 {
		v.Add("scopes", "choose at least one scope")
	}
	for _, sc := range scopes {
		if !domain.KnownScope(sc) {
			v.Add("scopes", fmt.Sprintf("unknown scope %q", sc))
		}
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	var out []string
	for _, sc := range domain.ScopeCatalogue {
		if slices.Contains(scopes, sc) {
			out = append(out, string(sc))
		}
	}
	return out, nil
}

func hashSecret(secret string) []byte {
	h := sha256.Sum256([]byte(secret))
	return h[:]
}

// randomString encodes n random bytes (n ≥ 32 gives the 256 bits a secret needs).
func randomString(n int, enc interface{ EncodeToString([]byte) string }) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return enc.EncodeToString(b)
}
