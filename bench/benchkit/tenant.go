package benchkit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/google/uuid"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// Tenant is what a benchmark reads of its seeded tenant.
type Tenant struct {
	ID       uuid.UUID
	Invoices []uuid.UUID // in id order
	From, To domain.Date // the first month of statements
}

// SeedTenant seeds the tenant slug at scale unless it exists (progress on
// stderr), then reads its id, its first invoices ids (at most invoices)
// and its first month of statements.
func SeedTenant(ctx context.Context, db *storage.DB, slug string, scale, invoices int) (Tenant, error) {
	var t Tenant
	start := time.Now()
	_, err := seed.Run(ctx, db, seed.Options{Tenant: slug, Scale: scale, Progress: os.Stderr})
	switch {
	case errors.Is(err, seed.ErrTenantExists):
		fmt.Fprintf(os.Stderr, "reusing tenant %s\n", slug)
	case err != nil:
		return t, err
	default:
		fmt.Fprintf(os.Stderr, "seeded tenant %s at scale %d in %s\n", slug, scale, time.Since(start).Round(time.Second))
	}
	if err := db.Pool.QueryRow(ctx, "SELECT id FROM tenants WHERE slug = $1", slug).Scan(&t.ID); err != nil {
		return t, fmt.Errorf("tenant %s: %w", slug, err)
	}
	rows, err := db.Pool.Query(ctx, "SELECT id FROM invoices WHERE tenant_id = $1 ORDER BY id LIMIT $2", t.ID, invoices)
	if err != nil {
		return t, err
	}
	for rows.Next() {
		var id uuid.UUID
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return t, err
		}
		t.Invoices = append(t.Invoices, id)
	}
	if err := rows.Err(); err != nil {
		return t, err
	}
	if len(t.Invoices) == 0 {
		return t, fmt.Errorf("tenant %s has no invoices", slug)
	}
	var first time.Time
	if err := db.Pool.QueryRow(ctx, "SELECT min(statement_date) FROM settlement_statements WHERE tenant_id = $1", t.ID).Scan(&first); err != nil {
		return t, err
	}
	t.From, t.To = domain.DateOf(first), domain.DateOf(first.AddDate(0, 1, -1))
	return t, nil
}

// Token fetches an access token for the client from the instance at base
// (the client-credentials grant of its /oauth/token) for audience.
func Token(ctx context.Context, base, clientID, secret, audience string) (string, error) {
	cc := clientcredentials.Config{ClientID: clientID, ClientSecret: secret, TokenURL: base + "/oauth/token",
		EndpointParams: map[string][]string{"audience": {audience}}}
	tok, err := cc.Token(ctx)
	if err != nil {
		return "", fmt.Errorf("token: %w", err)
	}
	return tok.AccessToken, nil
}
