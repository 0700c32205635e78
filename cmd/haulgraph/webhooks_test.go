package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/haulgraph/haulgraph/storage"
	"github.com/haulgraph/haulgraph/storage/dbtest"
	"github.com/haulgraph/haulgraph/testkit"
)

// webhookCLIEnv points the CLI at a migrated database holding tenant acme
// with one subsidiary, whose id it returns.
func webhookCLIEnv(t *testing.T) uuid.UUID {
	t.Helper()
	url := dbtest.URL(t)
	t.Setenv("DATABASE_URL", url)
	t.Setenv("HAULGRAPH_ENCRYPTION_KEY", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=")
	t.Setenv("HAULGRAPH_DEV_ALLOW_HTTP_WEBHOOKS", "true")
	ctx := context.Background()
	db, err := storage.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	if err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	tenant, sub := uuid.New(), uuid.New()
	if _, err := db.Bun.ExecContext(ctx, "INSERT INTO tenants (id, slug, name) VALUES (?, 'acme', 'Acme')", tenant); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Bun.ExecContext(ctx, "INSERT INTO subsidiaries (id, tenant_id, name) VALUES (?, ?, 'main')", sub, tenant); err != nil {
		t.Fatal(err)
	}
	return sub
}

func TestWebhooksCLI(t *testing.T) {
	ctx := context.Background()
	sub := webhookCLIEnv(t)
	rcv := testkit.NewReceiver(t)
	run := func(args ...string) map[string]any {
		t.Helper()
		var out bytes.Buffer
		if err := webhooksCmd(ctx, args, &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		var v map[string]any
		_ = json.Unmarshal(out.Bytes(), &v)
		return v
	}
	created := run("create", "--tenant", "acme", "--name", "ERP", "--url", rcv.URL, "--events", "load.changed,load.status.changed", "--subsidiary", sub.String())
	secret, _ := created["secret"].(string)
	hook, _ := created["webhook"].(map[string]any)
	if !strings.HasPrefix(secret, "whsec_") || hook["state"] != "Pending" || hook["signatureScheme"] != "service" || hook["publicKey"] != nil {
		t.Fatalf("create printed %v", created)
	}
	std := run("create", "--tenant", "acme", "--name", "std", "--url", rcv.URL, "--events", "load.changed", "--subsidiary", sub.String(),
		"--signature-scheme", "standard-webhooks")
	if s, _ := std["secret"].(string); !strings.HasPrefix(s, "whsec_") || std["webhook"].(map[string]any)["signatureScheme"] != "standard-webhooks" {
		t.Fatalf("create standard-webhooks printed %v", std)
	}
	ed := run("create", "--tenant", "acme", "--name", "ed", "--url", rcv.URL, "--events", "load.changed", "--subsidiary", sub.String(),
		"--signature-scheme", "standard-webhooks-ed25519")
	edHook := ed["webhook"].(map[string]any)
	if pk, _ := edHook["publicKey"].(string); ed["secret"] != nil || !strings.HasPrefix(pk, "whpk_") || edHook["signatureScheme"] != "standard-webhooks-ed25519" ||
		strings.Contains(string(testkit.MustJSON(t, ed)), "whsk_") {
		t.Fatalf("create standard-webhooks-ed25519 printed %v", ed)
	}
	if got := run("get", "--tenant", "acme", "--id", edHook["id"].(string)); got["publicKey"] != edHook["publicKey"] || got["signatureScheme"] != "standard-webhooks-ed25519" {
		t.Fatalf("get printed %v", got)
	}
	id := hook["id"].(string)
	if got := run("enable", "--tenant", "acme", "--id", id); got["state"] != "Active" || got["stateLabel"] != "Connected" {
		t.Fatalf("enable printed %v", got)
	}
	if got := run("get", "--tenant", "acme", "--id", id); got["secret"] != nil || strings.Contains(string(testkit.MustJSON(t, got)), secret) {
		t.Fatal("get printed the secret")
	}
	if got := run("disable", "--tenant", "acme", "--id", id); got["state"] != "Disabled" {
		t.Fatalf("disable printed %v", got)
	}
	rot := run("rotate-secret", "--tenant", "acme", "--id", id, "--rotation-window", "1h")
	if s, _ := rot["secret"].(string); s == secret || !strings.HasPrefix(s, "whsec_") {
		t.Fatalf("regenerate printed %v", rot)
	}
	// Refusals are errors with the field named.
	var out bytes.Buffer
	err := webhooksCmd(ctx, []string{"create", "--tenant", "acme", "--name", "x", "--url", "ftp://example.com", "--subsidiary", sub.String()}, &out)
	if err == nil || !strings.Contains(err.Error(), "url") || !strings.Contains(err.Error(), "eventTypes") {
		t.Fatalf("invalid create: %v", err)
	}
	err = webhooksCmd(ctx, []string{"create", "--tenant", "acme", "--name", "x", "--url", rcv.URL, "--events", "load.changed",
		"--subsidiary", sub.String(), "--signature-scheme", "hmac"}, &out)
	if err == nil || !strings.Contains(err.Error(), "signatureScheme") {
		t.Fatalf("unknown scheme: %v", err)
	}
	if err := webhooksCmd(ctx, []string{"update", "--tenant", "acme", "--id", id, "--signature-scheme", "standard-webhooks"}, &out); err == nil ||
		!strings.Contains(err.Error(), "signatureScheme") {
		t.Fatalf("scheme changed: %v", err)
	}
	if err := webhooksCmd(ctx, []string{"list", "--tenant", "nope"}, &out); err == nil {
		t.Fatal("unknown tenant accepted")
	}
}
