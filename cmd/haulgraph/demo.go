package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/haulgraph/haulgraph/app"
	"github.com/haulgraph/haulgraph/auth"
	"github.com/haulgraph/haulgraph/domain"
	"github.com/haulgraph/haulgraph/storage/seed"
)

// demoCredentialsFile keeps the demo client's credentials for `make run`
// across restarts: the database stores only the secret's hash, and this
// tenant exists only in the private development cluster. It lives in the
// demo's directory (app.Config.DemoDir), else in .data of the working one.
func demoCredentialsFile(cfg app.Config) string {
	dir := cfg.DemoDir
	if dir == "" {
		dir = ".data"
	}
	return filepath.Join(dir, app.DemoClientFile)
}

type demoCredentials struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// createDemoClient gives the freshly seeded demo tenant an API client holding
// every scope, saves its credentials and prints them with a curl example.
func createDemoClient(ctx context.Context, a *app.App, demo *seed.Result) error {
	c, secret, err := a.Auth.CreateClient(ctx, demo.TenantID, auth.ClientSpec{
		Name: "Demo", Description: "created by make run", Scopes: domain.ScopeCatalogue,
	})
	if err != nil {
		return fmt.Errorf("demo client: %w", err)
	}
	creds := demoCredentials{ClientID: c.ClientID, ClientSecret: secret}
	path := demoCredentialsFile(a.Config)
	if b, err := json.MarshalIndent(creds, "", "  "); err == nil && os.MkdirAll(filepath.Dir(path), 0o755) == nil {
		_ = os.WriteFile(path, append(b, '\n'), 0o600)
	}
	printDemoCredentials(a.Config, creds)
	return nil
}

// printDemoCredentials shows how to reach the demo tenant, on every start.
func printDemoCredentials(cfg app.Config, creds demoCredentials) {
	fmt.Printf(`
demo client (saved in %s):
  client_id:     %s
  client_secret: %s

  TOKEN=$(curl -s %s/oauth/token -d grant_type=client_credentials \
    -d client_id=%s -d client_secret=%s \
    -d audience=%s | sed -E 's/.*"access_token":"([^"]+)".*/\1/')
  curl -s %s/api/p/v1/trailers -H "Authorization: Bearer $TOKEN"

`, demoCredentialsFile(cfg), creds.ClientID, creds.ClientSecret, cfg.PublicURL, creds.ClientID, creds.ClientSecret, cfg.Audience, cfg.PublicURL)
}

// savedDemoCredentials prints the saved demo credentials when they exist.
func savedDemoCredentials(cfg app.Config) {
	b, err := os.ReadFile(demoCredentialsFile(cfg))
	if err != nil {
		return
	}
	var creds demoCredentials
	if json.Unmarshal(b, &creds) == nil && creds.ClientID != "" {
		printDemoCredentials(cfg, creds)
	}
}
